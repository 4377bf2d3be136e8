package config

import (
	"strings"
	"testing"
)

// areaCase is one environment given to one area's reader: either an error containing every string of
// wantErr, or a Config that check accepts.
type areaCase struct {
	name    string
	env     map[string]string
	start   Config // what earlier areas have read already
	wantErr []string
	check   func(t *testing.T, c Config)
}

func runArea(t *testing.T, read func(reader, *Config) error, cases []areaCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.start
			err := read(reader(env(tt.env)), &c)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; want one containing %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("err = %v, want it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check == nil {
				t.Fatal("a case that succeeds needs a check")
			}
			tt.check(t, c)
		})
	}
}

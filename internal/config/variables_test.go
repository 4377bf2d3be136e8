package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestVariablesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range Variables {
		if seen[v.Name] {
			t.Errorf("%s is in the table twice", v.Name)
		}
		seen[v.Name] = true
		if !slices.Contains(Areas, v.Area) {
			t.Errorf("%s: area %q is not one of Areas", v.Name, v.Area)
		}
		if v.Default == "" || v.Meaning == "" {
			t.Errorf("%s: want a default and a meaning, got %q and %q", v.Name, v.Default, v.Meaning)
		}
		if w := v.Whole; w != nil && (w.Unit == "" || (w.Max != 0 && w.Max < w.Min)) {
			t.Errorf("%s: bounds %+v", v.Name, *w)
		}
	}
	for _, a := range Areas {
		if !slices.ContainsFunc(Variables, func(v Var) bool { return v.Area == a }) {
			t.Errorf("area %q has no variables", a)
		}
	}
}

// TestWholeBounds gives every whole-number variable its bounds, one past them and a word: FromEnv
// takes the bounds and refuses the rest naming the variable and the form expected.
func TestWholeBounds(t *testing.T) {
	for _, v := range Variables {
		w := v.Whole
		if w == nil {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			good := []int64{w.Min}
			if w.Max != 0 {
				good = append(good, w.Max)
			}
			for _, n := range good {
				if _, err := FromEnv(env(map[string]string{v.Name: fmt.Sprint(n)})); err != nil {
					t.Errorf("%s=%d: %v", v.Name, n, err)
				}
			}
			bad := []string{fmt.Sprint(w.Min - 1), "many", "1.5"}
			if w.Max != 0 {
				bad = append(bad, fmt.Sprint(w.Max+1))
			}
			for _, val := range bad {
				_, err := FromEnv(env(map[string]string{v.Name: val}))
				want := fmt.Sprintf("%s=%q: want %s", v.Name, val, w)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s=%s: err = %v, want %q", v.Name, val, err, want)
				}
			}
		})
	}
}

func TestReaderRefusesAnUnknownName(t *testing.T) {
	defer func() {
		got := recover()
		if got == nil || !strings.Contains(fmt.Sprint(got), "NOT_IN_THE_TABLE") {
			t.Fatalf("recovered %v; want a panic naming NOT_IN_THE_TABLE", got)
		}
	}()
	reader(env(map[string]string{})).text("NOT_IN_THE_TABLE")
}

func TestReaderForms(t *testing.T) {
	r := reader(env(map[string]string{"LOG_LEVEL": "  debug ", "METRICS_TOKEN": " t ", "BROWSER_ALLOW_EVALUATE": "TRUE"}))
	if got := r.text("LOG_LEVEL"); got != "debug" {
		t.Errorf("text = %q, want debug", got)
	}
	if got := r.raw("METRICS_TOKEN"); got != " t " {
		t.Errorf("raw = %q, want the value untrimmed", got)
	}
	if b, err := r.boolean("BROWSER_ALLOW_EVALUATE"); err != nil || !b {
		t.Errorf("boolean = %v, %v; want true", b, err)
	}
	if b, err := r.boolean("WORKBENCH_DEV_ALLOW_LOOPBACK"); err != nil || b {
		t.Errorf("unset boolean = %v, %v; want false", b, err)
	}
	if got := (Whole{Min: 1, Unit: "a whole number"}).String(); got != "a whole number of at least 1" {
		t.Errorf("unbounded form %q", got)
	}
	if got := pattern(pluginClientID, "ACME"); got != "ACME_CLIENT_ID" {
		t.Errorf("pattern = %q", got)
	}
}

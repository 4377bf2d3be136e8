package config

import "testing"

func TestReadDevelopment(t *testing.T) {
	runArea(t, readDevelopment, []areaCase{
		{name: "off", env: map[string]string{}, check: func(t *testing.T, c Config) {
			if c.DevAllowLoopback {
				t.Error("loopback allowed by default")
			}
		}},
		{name: "on", env: map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": " true "}, check: func(t *testing.T, c Config) {
			if !c.DevAllowLoopback {
				t.Error("loopback not allowed")
			}
		}},
		{name: "yes", env: map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "yes"}, wantErr: []string{`WORKBENCH_DEV_ALLOW_LOOPBACK="yes"`, "want true or false"}},
	})
	if on, err := DevAllowLoopback(env(map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "1"})); err != nil || !on {
		t.Errorf("DevAllowLoopback = %v, %v; want true", on, err)
	}
	if _, err := DevAllowLoopback(env(map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "on"})); err == nil {
		t.Error("DevAllowLoopback took \"on\"")
	}
}

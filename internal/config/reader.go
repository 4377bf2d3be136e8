package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// reader is the environment as the area readers see it: every name it is asked for must be in
// Variables, and whole numbers are checked against the bounds recorded there.
type reader func(string) string

// raw is the variable's value as set.
func (r reader) raw(name string) string {
	mustLookup(name)
	return r(name)
}

// text is the variable's value without surrounding white space.
func (r reader) text(name string) string { return strings.TrimSpace(r.raw(name)) }

// whole reads a whole-number variable within the bounds of its table entry; set is false when it is
// unset or blank.
func (r reader) whole(name string) (n int64, set bool, err error) {
	w := mustLookup(name).Whole
	if w == nil {
		panic(fmt.Sprintf("config: %s is not a whole-number variable in the table", name))
	}
	v := strings.TrimSpace(r(name))
	if v == "" {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(v, 10, 64)
	if err != nil || n < w.Min || (w.Max != 0 && n > w.Max) {
		return 0, false, fmt.Errorf("%s=%q: want %s", name, v, w)
	}
	return n, true, nil
}

// wholeInt is whole as an int, def when unset.
func (r reader) wholeInt(name string, def int) (int, error) {
	n, set, err := r.whole(name)
	if err != nil || !set {
		return def, err
	}
	return int(n), nil
}

// seconds reads a whole-seconds variable as a duration, def when unset.
func (r reader) seconds(name string, def time.Duration) (time.Duration, error) {
	n, set, err := r.whole(name)
	if err != nil || !set {
		return def, err
	}
	return time.Duration(n) * time.Second, nil
}

// boolean reads true or false (any form strconv.ParseBool takes); unset is false.
func (r reader) boolean(name string) (bool, error) {
	v := r.text(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

// filled reads the variable a pattern names once its <UPPER> part is value.
func (r reader) filled(p, value string) string {
	mustLookup(p)
	return strings.TrimSpace(r(pattern(p, value)))
}

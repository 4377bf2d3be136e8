package projections

// InlinePrepared returns how many statements InTransaction has prepared so far.
func InlinePrepared(r *Runner) int {
	r.inlineMu.Lock()
	defer r.inlineMu.Unlock()
	return r.inline.prepared
}

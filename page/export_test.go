package page

// SetRenderFault makes every render call f in its slot before drawing (f panics to test a renderer's panic), until
// the returned function restores the previous hook. Tests that set it must not run in parallel with renders.
func SetRenderFault(f func(renderer string)) (restore func()) {
	prev := renderFault
	renderFault = f
	return func() { renderFault = prev }
}

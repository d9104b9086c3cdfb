package qr

// penalty scores a masked code, given as its rows and its columns, by the four rules of ISO/IEC 18004:2015
// 7.8.3.1; the encoder keeps the mask of the lowest score (the first of equals). The rules read as ZXing's encoder
// reads them, so a code here has the mask ZXing would give it (qr_test.go checks that against gozxing's encoder):
//   - N1, 3 + (n−5) for each run of n ≥ 5 modules of one colour in a row or a column;
//   - N2, 3 for each 2×2 block of one colour (blocks may overlap);
//   - N3, 40 for each dark-light-dark-dark-dark-light-dark pattern in a row or a column with four light modules
//     on either side (past the edge counts as light);
//   - N4, 10 for each whole 5% the dark modules' share is away from half.
//
// Each rule tests a whole line with shifts and masks (line.go); qr_test.go checks the result against the rules
// applied module by module on random grids.
func penalty(rows, cols []line, size int) int {
	m := masksFor(size)
	score, dark := 0, 0
	for y, r := range rows {
		score += runs(r, m) + finderLike(r, m) + runs(cols[y], m) + finderLike(cols[y], m)
		if y+1 < size {
			score += 3 * blocks(r, rows[y+1], m)
		}
		dark += r.count()
	}
	return score + balance(dark, size*size)
}

// masks are the modules of a line of one size where each rule's test may start.
type masks struct {
	line, run, block, pattern line // all, a run of five, a 2×2 block, a finder-like pattern
}

func masksFor(size int) masks {
	return masks{first(size), first(size - 4), first(size - 1), first(size - 6)}
}

// runs scores N1 in one line. A run of n ≥ 5 holds n−4 starts of five equal modules and costs n−2: the starts,
// plus 2 for the run's first.
func runs(r line, m masks) int {
	five := func(a line) line {
		return a.and(a.shr(1)).and(a.shr(2)).and(a.shr(3)).and(a.shr(4)).and(m.run)
	}
	w := five(r).or(five(r.not().and(m.line)))
	return w.count() + 2*w.and(w.shl(1).not()).count()
}

// blocks counts the 2×2 blocks of one colour whose top row is a and bottom row b.
func blocks(a, b line, m masks) int {
	across := a.xor(a.shr(1)).not() // a's module equals its right neighbour
	down := a.xor(b).not()          // a's module equals the one below it
	return across.and(down).and(down.shr(1)).and(m.block).count()
}

// finderLike scores N3 in one line.
func finderLike(r line, m masks) int {
	light := r.not() // past the edge too
	pattern := r.and(light.shr(1)).and(r.shr(2)).and(r.shr(3)).and(r.shr(4)).and(light.shr(5)).and(r.shr(6)).
		and(m.pattern)
	if pattern == (line{}) {
		return 0 // most lines: no need to look around
	}
	// The four modules before the pattern (below 0 is past the edge: light), and the four after it.
	before := light.shl(1).or(line{0b1}).and(light.shl(2).or(line{0b11})).
		and(light.shl(3).or(line{0b111})).and(light.shl(4).or(line{0b1111}))
	after := light.shr(7).and(light.shr(8)).and(light.shr(9)).and(light.shr(10))
	return 40 * pattern.and(before.or(after)).count()
}

// balance scores N4 for dark modules out of total.
func balance(dark, total int) int {
	diff := 2*dark - total
	if diff < 0 {
		diff = -diff
	}
	return 10 * (diff * 10 / total)
}

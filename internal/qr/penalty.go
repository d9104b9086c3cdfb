package qr

// penalty scores a masked grid by the four rules of ISO/IEC 18004:2015 7.8.3.1; the encoder keeps the mask of the
// lowest score (the first of equals). The rules read as ZXing's encoder reads them, so a code here has the mask
// ZXing would give it (qr_test.go checks that against gozxing's encoder):
//   - N1, 3 + (n−5) for each run of n ≥ 5 modules of one colour in a row or a column;
//   - N2, 3 for each 2×2 block of one colour (blocks may overlap);
//   - N3, 40 for each dark-light-dark-dark-dark-light-dark pattern in a row or a column with four light modules
//     on either side (past the edge counts as light);
//   - N4, 10 for each whole 5% the dark modules' share is away from half.
func penalty(dark []bool, size int, cols []bool) int {
	// The row rules read the columns as the rows of the transpose.
	for y := range size {
		for x := range size {
			cols[x*size+y] = dark[y*size+x]
		}
	}
	score := blocks(dark, size) + balance(dark)
	for _, g := range [2][]bool{dark, cols} {
		for y := range size {
			row := g[y*size:][:size]
			score += runs(row) + finderLike(row)
		}
	}
	return score
}

// runs scores N1 in one row.
func runs(row []bool) int {
	score, n := 0, 1
	for x := 1; x <= len(row); x++ {
		if x < len(row) && row[x] == row[x-1] {
			n++
			continue
		}
		if n >= 5 {
			score += 3 + n - 5
		}
		n = 1
	}
	return score
}

func blocks(dark []bool, size int) int {
	n := 0
	for y := range size - 1 {
		row, next := dark[y*size:][:size], dark[(y+1)*size:][:size]
		for x := range size - 1 {
			if c := row[x]; row[x+1] == c && next[x] == c && next[x+1] == c {
				n++
			}
		}
	}
	return 3 * n
}

// finderPattern is the 1:1:3:1:1 dark-light ratio of a finder pattern's middle row, as the last seven modules
// read (dark 1, the newest lowest).
const finderPattern = 0b1011101

// finderLike scores N3 in one row: the last seven modules are kept in the low bits of w as the row is read.
func finderLike(row []bool) int {
	n, w := 0, 0
	for x, c := range row {
		w = w<<1&0x7f | b2i(c)
		if w != finderPattern {
			continue
		}
		if from := x - 6; light(row, from-4, from) || light(row, x+1, x+5) {
			n++
		}
	}
	return 40 * n
}

func b2i(c bool) int {
	if c {
		return 1
	}
	return 0
}

// light reports whether modules from..to-1 of a row are all light; those past the grid's edge count as light (the
// quiet zone).
func light(row []bool, from, to int) bool {
	for x := max(from, 0); x < min(to, len(row)); x++ {
		if row[x] {
			return false
		}
	}
	return true
}

func balance(dark []bool) int {
	d := 0
	for _, c := range dark {
		if c {
			d++
		}
	}
	total := len(dark)
	diff := 2*d - total
	if diff < 0 {
		diff = -diff
	}
	return 10 * (diff * 10 / total)
}

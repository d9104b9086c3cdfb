package qr

import "math/bits"

// line is one row or one column of a code: module i is bit i%64 of word i/64, dark is 1. Three words hold the
// 177 modules of version 40 with room to shift: the penalty rules (penalty.go) test a whole line at once with
// shifts and masks instead of module by module.
type line [3]uint64

// shr moves every module k (1..63) places towards 0: bit i of the result is bit i+k of l (0 past the end).
func (l line) shr(k uint) line {
	return line{l[0]>>k | l[1]<<(64-k), l[1]>>k | l[2]<<(64-k), l[2] >> k}
}

// shl moves every module k (1..63) places away from 0: bit i of the result is bit i−k of l (0 below k).
func (l line) shl(k uint) line {
	return line{l[0] << k, l[1]<<k | l[0]>>(64-k), l[2]<<k | l[1]>>(64-k)}
}

func (l line) and(m line) line { return line{l[0] & m[0], l[1] & m[1], l[2] & m[2]} }
func (l line) or(m line) line  { return line{l[0] | m[0], l[1] | m[1], l[2] | m[2]} }
func (l line) xor(m line) line { return line{l[0] ^ m[0], l[1] ^ m[1], l[2] ^ m[2]} }
func (l line) not() line       { return line{^l[0], ^l[1], ^l[2]} }

func (l line) count() int {
	return bits.OnesCount64(l[0]) + bits.OnesCount64(l[1]) + bits.OnesCount64(l[2])
}

func (l line) bit(i int) bool { return l[i>>6]>>(i&63)&1 == 1 }

func (l *line) set(i int) { l[i>>6] |= 1 << (i & 63) }

// first is the line of the modules 0..n-1 (none for n ≤ 0).
func first(n int) (out line) {
	for i := range out {
		switch {
		case n >= 64*(i+1):
			out[i] = ^uint64(0)
		case n > 64*i:
			out[i] = 1<<(n-64*i) - 1
		}
	}
	return out
}

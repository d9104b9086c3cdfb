//go:build ignore

// Command badge_png writes badge.png, the 256×256 example image of the README's First steps:
//
//	go run docs/examples/badge_png.go   # from the repository root
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
)

func main() {
	const size = 256
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	gold, navy := color.NRGBA{0xE8, 0xB0, 0x2E, 0xFF}, color.NRGBA{0x1F, 0x2A, 0x44, 0xFF}
	for y := range size {
		for x := range size {
			dx, dy := x-size/2, y-size/2
			switch d := dx*dx + dy*dy; {
			case d < 100*100:
				img.SetNRGBA(x, y, gold) // the medal
			case d < 120*120:
				img.SetNRGBA(x, y, navy) // its rim; outside stays transparent
			}
		}
	}
	f, err := os.Create("docs/examples/badge.png")
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

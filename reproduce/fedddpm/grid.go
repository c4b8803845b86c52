package fedddpm

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/fedrepro/fedrepro/reproduce/runner"
)

// Sample grids are drawn so a reader can see each sample: every source
// pixel becomes a block of at least minPixelScale × minPixelScale device
// pixels (nearest neighbour, integer factor: no smoothing invents detail),
// a sample is at least minSamplePixels wide, and samples are separated by
// a coloured gap one enlarged pixel wide.
const (
	minPixelScale   = 8
	minSamplePixels = 64
)

// sampleScale is the integer enlargement of a w-pixel-wide sample: at
// least minPixelScale, and enough for minSamplePixels (10 for 7×7, 8 for
// 28×28).
func sampleScale(w int) int {
	return max(minPixelScale, (minSamplePixels+w-1)/max(w, 1))
}

// gapColor separates the samples: a blue of middle lightness, so it
// stands apart from both the black backgrounds and the white strokes of
// grey images.
var gapColor = color.RGBA{70, 130, 180, 255}

// GridPNG renders n images (row-major rows of c·h·w values in [−1, 1],
// channel-major planes) as a PNG mosaic of cols columns, each pixel
// enlarged scale times (nearest neighbour), with gap device pixels of
// gapColor between the tiles and around them. Values are clipped to
// [−1, 1]. One channel gives grey, three give RGB.
func GridPNG(x []float64, n, c, h, w, cols, scale, gap int) ([]byte, error) {
	if n < 1 || (c != 1 && c != 3) || h < 1 || w < 1 || len(x) < n*c*h*w || gap < 0 {
		return nil, fmt.Errorf("grid: %d images of %d×%d×%d in %d values (gap %d)", n, c, h, w, len(x), gap)
	}
	cols = max(1, min(cols, n))
	scale = max(scale, 1)
	rows := (n + cols - 1) / cols
	tw, th := w*scale+gap, h*scale+gap
	img := image.NewRGBA(image.Rect(0, 0, cols*tw+gap, rows*th+gap))
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for xx := img.Rect.Min.X; xx < img.Rect.Max.X; xx++ {
			img.SetRGBA(xx, y, gapColor)
		}
	}
	pix := func(v float64) uint8 {
		v = math.Max(-1, math.Min(1, v))
		return uint8(math.Round((v + 1) / 2 * 255))
	}
	plane := h * w
	for k := 0; k < n; k++ {
		row := x[k*c*plane : (k+1)*c*plane]
		ox, oy := (k%cols)*tw+gap, (k/cols)*th+gap
		for i := 0; i < h; i++ {
			for j := 0; j < w; j++ {
				var col color.RGBA
				if c == 1 {
					g := pix(row[i*w+j])
					col = color.RGBA{g, g, g, 255}
				} else {
					col = color.RGBA{pix(row[i*w+j]), pix(row[plane+i*w+j]), pix(row[2*plane+i*w+j]), 255}
				}
				for a := 0; a < scale; a++ {
					for b := 0; b < scale; b++ {
						img.SetRGBA(ox+j*scale+b, oy+i*scale+a, col)
					}
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writePNG stores a PNG atomically.
func writePNG(path string, b []byte) error { return runner.WriteFileAtomic(path, b) }

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

// GridPNG renders n images (row-major rows of c·h·w values in [−1, 1],
// channel-major planes) as a PNG mosaic of cols columns, each pixel
// enlarged scale times, with a one-pixel grey border between tiles.
// Values are clipped to [−1, 1]. One channel gives grey, three give RGB.
func GridPNG(x []float64, n, c, h, w, cols, scale int) ([]byte, error) {
	if n < 1 || (c != 1 && c != 3) || h < 1 || w < 1 || len(x) < n*c*h*w {
		return nil, fmt.Errorf("grid: %d images of %d×%d×%d in %d values", n, c, h, w, len(x))
	}
	cols = max(1, min(cols, n))
	scale = max(scale, 1)
	rows := (n + cols - 1) / cols
	tw, th := w*scale+1, h*scale+1
	img := image.NewRGBA(image.Rect(0, 0, cols*tw+1, rows*th+1))
	border := color.RGBA{128, 128, 128, 255}
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for xx := img.Rect.Min.X; xx < img.Rect.Max.X; xx++ {
			img.SetRGBA(xx, y, border)
		}
	}
	pix := func(v float64) uint8 {
		v = math.Max(-1, math.Min(1, v))
		return uint8(math.Round((v + 1) / 2 * 255))
	}
	plane := h * w
	for k := 0; k < n; k++ {
		row := x[k*c*plane : (k+1)*c*plane]
		ox, oy := (k%cols)*tw+1, (k/cols)*th+1
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

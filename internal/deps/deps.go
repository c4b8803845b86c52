// Package deps pins the project's direct dependencies while the packages that
// use them are being written. It is never imported.
package deps

import (
	_ "github.com/leanovate/gopter"
	_ "github.com/olekukonko/tablewriter"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/perf/benchmath"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/plot"
)

package runner

import (
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Limit bounds a numeric spec key (wherever it appears in the document) or,
// with MaxItems, the length of a list.
type Limit struct {
	Min, Max           float64
	MinItems, MaxItems int
}

// SpecLimits are the bounds every paper's spec is held to: counts that make
// a run last for ever (epochs: 1e12) or exhaust memory are refused with the
// key and line, before anything runs. They are far above every scale the
// project ships (the paper scales included).
var SpecLimits = map[string]Limit{
	"experiments":         {MinItems: 1, MaxItems: 1000},
	"seeds":               {Min: 0, Max: 1 << 53, MaxItems: 100},
	"iterations":          {Min: 1, Max: 100_000},
	"upcycled_iterations": {Min: 1, Max: 100_000},
	"rounds":              {Min: 1, Max: 100_000},
	"epochs":              {Min: 0, Max: 10_000},
	"local_epochs":        {Min: 0, Max: 10_000},
	"server_epochs":       {Min: 0, Max: 10_000},
	"plus_epochs":         {Min: 0, Max: 10_000},
	"central_epochs":      {Min: 0, Max: 100_000},
	"warmup_epochs":       {Min: 0, Max: 100_000},
	"local_steps":         {Min: 1, Max: 100_000},
	"clients":             {Min: 1, Max: 1_000_000},
	"client_size":         {Min: 0, Max: 10_000_000},
	"per_client":          {Min: 0, Max: 10_000_000},
	"train_size":          {Min: 1, Max: 100_000_000},
	"batch":               {Min: 1, Max: 10_000_000},
	"lot":                 {Min: 0, Max: 10_000_000},
	"hidden":              {Min: 1, Max: 100_000},
	"eval_every":          {Min: 0, Max: 100_000},
	"pool":                {Min: 0, Max: 8},
}

// CheckLimits walks a YAML document and returns the first value outside
// SpecLimits as "name:line: key = value exceeds …".
func CheckLimits(name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil // decoding reports it
	}
	return checkNode(name, &doc)
}

func checkNode(name string, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := checkNode(name, c); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if lim, ok := SpecLimits[k.Value]; ok {
				if err := checkValue(name, k.Value, v, lim); err != nil {
					return err
				}
			}
			if err := checkNode(name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkValue(name, key string, v *yaml.Node, lim Limit) error {
	switch v.Kind {
	case yaml.SequenceNode:
		if lim.MaxItems > 0 && len(v.Content) > lim.MaxItems {
			return fmt.Errorf("%s:%d: %s has %d entries, more than the limit of %d", name, v.Line, key, len(v.Content), lim.MaxItems)
		}
		if len(v.Content) < lim.MinItems {
			return fmt.Errorf("%s:%d: %s is empty", name, v.Line, key)
		}
		if key == "experiments" {
			return nil // mappings, checked key by key by checkNode
		}
		for _, c := range v.Content {
			if err := checkValue(name, key, c, lim); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		// e.g. lr: {sgd: 0.25}; per-entry values of a count key.
		for i := 1; i < len(v.Content); i += 2 {
			if err := checkValue(name, key, v.Content[i], lim); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		x, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			return nil // not a number: the typed decoding reports it
		}
		if math.IsNaN(x) || x < lim.Min || x > lim.Max {
			return fmt.Errorf("%s:%d: %s = %s is outside the allowed range [%g, %g]", name, v.Line, key, v.Value, lim.Min, lim.Max)
		}
	}
	return nil
}

package data

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// LEAFFile is one decoded LEAF JSON file (FEMNIST, …): its users in file
// order and each user's rows. Classes of each dataset is its largest label
// + 1 until BuildLEAF sets a common value.
type LEAFFile struct {
	Name  string // file name, for errors
	Users []string
	Data  map[string]*Dataset
}

type leafJSON struct {
	Users      []string `json:"users"`
	NumSamples []int    `json:"num_samples"`
	UserData   map[string]struct {
		X [][]float64 `json:"x"`
		Y []float64   `json:"y"`
	} `json:"user_data"`
}

// DecodeLEAF parses a LEAF-format JSON file {"users": [...],
// "num_samples": [...], "user_data": {u: {"x": [[...]], "y": [...]}}}.
// Every user needs user_data with len(x) = len(y) = num_samples, all rows
// the same length, and integral labels ≥ 0. name is used in errors.
func DecodeLEAF(r io.Reader, name string) (*LEAFFile, error) {
	var j leafJSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%s: not a LEAF JSON file: %v", name, err)
	}
	if len(j.NumSamples) != len(j.Users) {
		return nil, fmt.Errorf("%s: %d users but %d num_samples", name, len(j.Users), len(j.NumSamples))
	}
	f := &LEAFFile{Name: name, Users: j.Users, Data: make(map[string]*Dataset, len(j.Users))}
	d := -1
	for i, u := range j.Users {
		if _, dup := f.Data[u]; dup {
			return nil, fmt.Errorf("%s: user %q listed twice", name, u)
		}
		ud, ok := j.UserData[u]
		if !ok {
			return nil, fmt.Errorf("%s: user %q has no user_data", name, u)
		}
		if len(ud.X) != j.NumSamples[i] || len(ud.Y) != j.NumSamples[i] {
			return nil, fmt.Errorf("%s: user %q has %d x and %d y, num_samples says %d", name, u, len(ud.X), len(ud.Y), j.NumSamples[i])
		}
		ds := &Dataset{N: len(ud.Y), Y: make([]int, len(ud.Y))}
		for k, x := range ud.X {
			if d < 0 {
				d = len(x)
			}
			if len(x) != d {
				return nil, fmt.Errorf("%s: user %q sample %d has %d features, earlier samples %d", name, u, k, len(x), d)
			}
			ds.X = append(ds.X, x...)
			y := ud.Y[k]
			if y != math.Trunc(y) || y < 0 || y >= maxLabel {
				return nil, fmt.Errorf("%s: user %q sample %d has label %v, want an integer in [0,%d)", name, u, k, y, maxLabel)
			}
			ds.Y[k] = int(y)
			ds.Classes = max(ds.Classes, int(y)+1)
		}
		ds.D = max(d, 0)
		f.Data[u] = ds
	}
	if len(j.UserData) != len(j.Users) {
		return nil, fmt.Errorf("%s: user_data has %d users, users lists %d", name, len(j.UserData), len(j.Users))
	}
	return f, nil
}

// BuildLEAF merges LEAF train and test files into a Federated dataset.
// Clients are the train users in order of appearance (files in the order
// given); a user's test rows come from the test files (a train user absent
// from them gets an empty test set; a test-only user is an error). The
// pooled test set stacks the clients' test rows in client order. classes
// (e.g. 62 for FEMNIST) sets Classes; 0 means largest label + 1.
func BuildLEAF(name, source string, train, test []*LEAFFile, classes int) (*Federated, error) {
	type slot struct {
		tr, te *Dataset
		file   string
	}
	var users []string
	byUser := map[string]*slot{}
	d, maxC := -1, 0
	check := func(file, u string, ds *Dataset) error {
		if ds.N == 0 {
			return nil
		}
		if d < 0 {
			d = ds.D
		}
		if ds.D != d {
			return fmt.Errorf("%s: %s: user %q has %d features, other users %d", name, file, u, ds.D, d)
		}
		maxC = max(maxC, ds.Classes)
		return nil
	}
	for _, f := range train {
		for _, u := range f.Users {
			if s, dup := byUser[u]; dup {
				return nil, fmt.Errorf("%s: train user %q appears in both %s and %s", name, u, s.file, f.Name)
			}
			if err := check(f.Name, u, f.Data[u]); err != nil {
				return nil, err
			}
			byUser[u] = &slot{tr: f.Data[u], file: f.Name}
			users = append(users, u)
		}
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s: the train files list no users", name)
	}
	for _, f := range test {
		for _, u := range f.Users {
			s, ok := byUser[u]
			if !ok {
				return nil, fmt.Errorf("%s: %s: test user %q has no training data", name, f.Name, u)
			}
			if s.te != nil {
				return nil, fmt.Errorf("%s: %s: test user %q appears twice", name, f.Name, u)
			}
			if err := check(f.Name, u, f.Data[u]); err != nil {
				return nil, err
			}
			s.te = f.Data[u]
		}
	}
	if classes == 0 {
		classes = maxC
	} else if maxC > classes {
		return nil, fmt.Errorf("%s: a label reaches %d, beyond %d classes", name, maxC-1, classes)
	}
	d = max(d, 0)
	fix := func(ds *Dataset) *Dataset {
		if ds == nil {
			return &Dataset{D: d, Classes: classes, X: []float64{}, Y: []int{}}
		}
		c := *ds
		c.Classes = classes
		if c.N == 0 {
			c.D = d
		}
		return &c
	}
	f := &Federated{Name: name, Source: source, D: d, Classes: classes}
	var tests []*Dataset
	for i, u := range users {
		s := byUser[u]
		cl := Client{ID: i, Train: fix(s.tr), Test: fix(s.te)}
		f.Clients = append(f.Clients, cl)
		tests = append(tests, cl.Test)
	}
	f.Test = Concat(tests...)
	f.Test.D, f.Test.Classes = d, classes
	return f, nil
}

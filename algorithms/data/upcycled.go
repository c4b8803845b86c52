package data

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// UpcycledSyntheticNames lists the synthetic datasets released with
// Upcycled-FL (upstream osu-srml/Upcycled-FL, commit 4dd7400), in the order
// of the paper's tables.
var UpcycledSyntheticNames = []string{"synthetic_iid", "synthetic_0_0", "synthetic_0.5_0.5", "synthetic_1_1"}

// upcycledSHA256 pins every released file (shared/datasets/upcycled-synthetic/
// SHA256SUMS), keyed by dataset and path relative to the dataset folder.
var upcycledSHA256 = map[string]map[string]string{
	"synthetic_iid": {
		"train/mytrain.pt":       "faf5186d8c95fa3a0dae6755102d8f20eab8464a6b689f82e925c634fe11f534",
		"train/user_groups.json": "f9299819ed0cf0219810654b0afd63c940aa91886a895d3ca9c8b81972851549",
		"test/mytest.pt":         "b9eb59fe338955fed9cd0f27aa1049ca1f7f504f0a36a6931afc3f34be623be5",
		"test/user_groups.json":  "1028ba93a84e27d59764dbf7f30498221e3d45c7edcabe27df0c3eb32c1b8e02",
	},
	"synthetic_0_0": {
		"train/mytrain.pt":       "4bb5f32bc04e722f4b8fbb1ed839394a438488e9bcd7a0874c108203026f372c",
		"train/user_groups.json": "2a9b66c80c1d9d3fbb96ed13eb9b436b0c38072d4d6c70059367690ee7c0b449",
		"test/mytest.pt":         "12dfcafab0aaa70b60f59f98413c118a2999c7d9032844351ee6cc7fc22398fa",
		"test/user_groups.json":  "619072dc0413f20e8ee34a5302fb89a2da0fc4a8fee7d299cc1cf3064284f9db",
	},
	"synthetic_0.5_0.5": {
		"train/mytrain.pt":       "8c6dbfa976f301414620c2ec2592dd1fd2341beb63df98dafeac05053d3c4329",
		"train/user_groups.json": "4c4ec6e3526d718ee5d1879208117e3aaefc9f83ed18d725fc6eeb67461e2d4d",
		"test/mytest.pt":         "3ae5f3ad59d9c4f621d632ad0431adeb6edd5ca22f0e08534dda4e39177d6bce",
		"test/user_groups.json":  "7ee4536af74bed335165667995eb5c24bc0fcc48c0aebfea2f50c44270392a4f",
	},
	"synthetic_1_1": {
		"train/mytrain.pt":       "948d6dc570bcf4f3a06d9f27af68ce64ac56f8046f628377509bd60d7dc53179",
		"train/user_groups.json": "1205071a7a72039b6c68727bd13a9b28261b05ee027e5ff70d8db2162ce9d602",
		"test/mytest.pt":         "4069d3d6684a0d7e38011f517b12fb1d9165f0d405f38ef3f06feb7234e6d559",
		"test/user_groups.json":  "33a06dcadbbe67d33394e1c933079551c734e4dfc97837b747d0823a7eff9aeb",
	},
}

// Paths of the four files of an upstream dataset folder, relative to it.
const (
	UpcycledTrainPT     = "train/mytrain.pt"
	UpcycledTestPT      = "test/mytest.pt"
	UpcycledTrainGroups = "train/user_groups.json"
	UpcycledTestGroups  = "test/user_groups.json"
)

// UpcycledPins returns the SHA-256 pins (hex) of a released Upcycled-FL
// dataset's four files, keyed by path relative to the dataset folder, and
// false for an unknown name. The map is a copy.
func UpcycledPins(name string) (map[string]string, bool) {
	p, ok := upcycledSHA256[name]
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out, true
}

// maxGroupUsers caps the number of users a user_groups.json may declare.
const maxGroupUsers = 1 << 20

// DecodeUserGroups reads an upstream user_groups.json: an object
// {"0": [row indices…], …, "K-1": […]} whose keys are exactly the decimal
// integers 0..K-1. It returns the index lists ordered by user. Indices must
// be non-negative integers; their range is checked by BuildUpcycled.
func DecodeUserGroups(b []byte, name string) ([][]int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string][]json.Number
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: not a user_groups object {\"0\": [indices…], …}: %v", name, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: user_groups is null, want an object", name)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: trailing data after the user_groups object", name)
	}
	if len(raw) > maxGroupUsers {
		return nil, fmt.Errorf("%s: %d users, more than this reader accepts", name, len(raw))
	}
	groups := make([][]int, len(raw))
	seen := make([]bool, len(raw))
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		u, err := strconv.Atoi(k)
		if err != nil || u < 0 || u >= len(raw) || strconv.Itoa(u) != k {
			return nil, fmt.Errorf("%s: user key %q; want the decimal integers 0..%d", name, k, len(raw)-1)
		}
		seen[u] = true
		idx := make([]int, len(raw[k]))
		for j, num := range raw[k] {
			v, err := strconv.ParseInt(string(num), 10, 64)
			if err != nil || v < 0 || v > 1<<40 {
				return nil, fmt.Errorf("%s: user %s entry %d is %s, want a non-negative integer row index", name, k, j, num)
			}
			idx[j] = int(v)
		}
		groups[u] = idx
	}
	return groups, nil
}

// BuildUpcycled assembles an upstream Upcycled-FL dataset: client k trains
// on the rows trainGroups[k] of train and tests on the rows testGroups[k] of
// test; the pooled test set is all of test (upstream server/avg.py
// evaluates the global model on the pooled set). Groups must name rows in
// range, must not overlap, and both files must list the same number of
// users. Classes is the larger of the two sets' label counts.
func BuildUpcycled(name, source string, train, test *Dataset, trainGroups, testGroups [][]int) (*Federated, error) {
	if train.D != test.D {
		return nil, fmt.Errorf("%s: train has %d features, test has %d", name, train.D, test.D)
	}
	if len(trainGroups) != len(testGroups) {
		return nil, fmt.Errorf("%s: train user_groups has %d users, test has %d", name, len(trainGroups), len(testGroups))
	}
	if len(trainGroups) == 0 {
		return nil, fmt.Errorf("%s: user_groups lists no users", name)
	}
	if err := CheckPartition(trainGroups, train.N, false); err != nil {
		return nil, fmt.Errorf("%s: train user_groups: %w", name, err)
	}
	if err := CheckPartition(testGroups, test.N, false); err != nil {
		return nil, fmt.Errorf("%s: test user_groups: %w", name, err)
	}
	classes := max(train.Classes, test.Classes)
	tr, te := *train, *test
	tr.Classes, te.Classes = classes, classes
	f := &Federated{Name: name, Source: source, Test: &te, D: train.D, Classes: classes}
	for k := range trainGroups {
		f.Clients = append(f.Clients, Client{ID: k, Train: tr.Subset(trainGroups[k]), Test: te.Subset(testGroups[k])})
	}
	return f, nil
}

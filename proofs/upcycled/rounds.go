package upcycled

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/fedrepro/fedrepro/algorithms/data"
	"github.com/fedrepro/fedrepro/algorithms/fl"
	"github.com/fedrepro/fedrepro/algorithms/model"
	"github.com/fedrepro/fedrepro/algorithms/rng"
	up "github.com/fedrepro/fedrepro/algorithms/upcycled"
	"github.com/fedrepro/fedrepro/proofs"
)

func init() {
	register("even-rounds-no-data", "§4 (Upcycled-FedProx), Algorithm 1, Fig. 1; §7 item 21 ('even' for odd)",
		"Even iterations are computed on the server only: Upcycled-FL over 2T iterations has exactly T training rounds, with the same data accesses, uploads and local SGD steps as the baseline over T rounds and the same client selections; the even step cannot read client data.",
		checkEvenNoData)
}

// smallFederation draws a small Syn(0.5,0.5)-style federation for engine
// runs (generator, not the released data: only counts matter here).
func smallFederation(seed uint64, users int) ([]*data.Dataset, error) {
	cfg, err := data.SyntheticPreset("syn_0.5_0.5")
	if err != nil {
		return nil, err
	}
	cfg.Users, cfg.MaxSamples = users, 150
	f, err := data.GenerateSynthetic(cfg, rng.New(seed, "proofs", paper, "small-federation"))
	if err != nil {
		return nil, err
	}
	out := make([]*data.Dataset, len(f.Clients))
	for i, c := range f.Clients {
		out[i] = c.Train
	}
	return out, nil
}

// newEngine builds an engine for baseline name on clients.
func newEngine(clients []*data.Dataset, name string, cfg fl.Config, key rng.Key, hooks fl.Hooks) (*fl.Engine, fl.Algorithm, error) {
	m := model.NewLogReg(clients[0].D, 2, model.CrossEntropy)
	alg, err := fl.NewAlgorithm(name, fl.Params{Mu: 0.5})
	if err != nil {
		return nil, nil, err
	}
	e, err := fl.New(m, clients, alg, cfg, key, make([]float64, m.NumParams()), hooks)
	return e, alg, err
}

// datasetType is what client data looks like to reflection.
var datasetType = reflect.TypeOf(data.Dataset{})

// reachesDataset walks a value (pointers, interfaces, structs including
// unexported fields, slices, arrays, maps) and returns the path to the
// first data.Dataset it finds, or "".
func reachesDataset(v reflect.Value, path string, seen map[uintptr]bool) string {
	if !v.IsValid() {
		return ""
	}
	if v.Type() == datasetType {
		return path
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		if seen[v.Pointer()] {
			return ""
		}
		seen[v.Pointer()] = true
		return reachesDataset(v.Elem(), path, seen)
	case reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return reachesDataset(v.Elem(), path+".(dynamic)", seen)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if p := reachesDataset(v.Field(i), path+"."+v.Type().Field(i).Name, seen); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return ""
		}
		for i := 0; i < v.Len(); i++ {
			if p := reachesDataset(v.Index(i), fmt.Sprintf("%s[%d]", path, i), seen); p != "" {
				return p
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if p := reachesDataset(it.Value(), path+"[k]", seen); p != "" {
				return p
			}
		}
	}
	return ""
}

// typeReachesDataset reports whether a static type can hold a data.Dataset
// without passing through an interface (interfaces are checked at run time).
func typeReachesDataset(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == datasetType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return typeReachesDataset(t.Elem(), seen)
	case reflect.Map:
		return typeReachesDataset(t.Key(), seen) || typeReachesDataset(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if typeReachesDataset(t.Field(i).Type, seen) {
				return true
			}
		}
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			if typeReachesDataset(t.In(i), seen) {
				return true
			}
		}
	}
	return false
}

func checkEvenNoData(cfg proofs.Config) proofs.Result {
	T := 6
	users := 10
	if cfg.Quick {
		T, users = 4, 8
	}
	clients, err := smallFederation(cfg.Seed, users)
	if err != nil {
		return inconclusive("data: %v", err)
	}
	flc := fl.Config{Sampling: fl.Uniform, Frac: 0.3, Stragglers: 0.5,
		Local: fl.LocalConfig{Epochs: 2, BatchSize: 16, LR: 0.05, Momentum: 0.5}}
	// Type-level fact: EvenStep's parameters.
	evenType := reflect.TypeOf(up.EvenStep)
	var params []string
	for i := 0; i < evenType.NumIn(); i++ {
		params = append(params, evenType.In(i).String())
	}
	staticData := typeReachesDataset(evenType, map[reflect.Type]bool{})
	extType := reflect.TypeOf((*fl.StateExtrapolator)(nil)).Elem()
	var extParams []string
	for i := 0; i < extType.NumMethod(); i++ {
		m := extType.Method(i)
		extParams = append(extParams, m.Name+m.Type.String())
		if typeReachesDataset(m.Type, map[reflect.Type]bool{}) {
			staticData = true
		}
	}
	var problems []string
	perAlg := map[string]any{}
	for _, name := range fl.Baselines {
		key := rng.New(cfg.Seed, "proofs", paper, "even-rounds", name)
		base, balg, err := newEngine(clients, name, flc, key, fl.Hooks{})
		if err != nil {
			return inconclusive("%s: %v", name, err)
		}
		upc, ualg, err := newEngine(clients, name, flc, key, fl.Hooks{})
		if err != nil {
			return inconclusive("%s: %v", name, err)
		}
		var bsel, usel [][]int
		if err := up.Run(base, balg, up.Schedule{Iterations: T}, func(it up.Iteration) {
			bsel = append(bsel, slices.Clone(it.Round.Selected))
		}); err != nil {
			return inconclusive("%s baseline: %v", name, err)
		}
		var evenAccess, evenUploads, evenSteps int64
		prev := upc.Server().Counters
		if err := up.Run(upc, ualg, up.Schedule{Iterations: 2 * T, Upcycled: true, Coef: 0.5}, func(it up.Iteration) {
			now := upc.Server().Counters
			if it.Training != (it.T%2 == 1) {
				problems = append(problems, fmt.Sprintf("%s: iteration %d training=%v", name, it.T, it.Training))
			}
			if !it.Training {
				evenAccess += now.DataAccesses - prev.DataAccesses
				evenUploads += now.Uploads - prev.Uploads
				evenSteps += now.SGDSteps - prev.SGDSteps
			} else {
				usel = append(usel, slices.Clone(it.Round.Selected))
			}
			prev = now
		}); err != nil {
			return inconclusive("%s upcycled: %v", name, err)
		}
		bc, uc := base.Server().Counters, upc.Server().Counters
		if uc.TrainingRounds != int64(T) || uc.ServerRounds != int64(T) || bc.TrainingRounds != int64(T) {
			problems = append(problems, fmt.Sprintf("%s: training rounds upcycled %d (server %d), baseline %d, want %d", name, uc.TrainingRounds, uc.ServerRounds, bc.TrainingRounds, T))
		}
		if uc.DataAccesses != bc.DataAccesses || uc.Uploads != bc.Uploads || uc.SGDSteps != bc.SGDSteps || uc.SampleGrads != bc.SampleGrads {
			problems = append(problems, fmt.Sprintf("%s: counters baseline %+v vs upcycled %+v", name, bc, uc))
		}
		if evenAccess != 0 || evenUploads != 0 || evenSteps != 0 {
			problems = append(problems, fmt.Sprintf("%s: even iterations did %d data accesses, %d uploads, %d SGD steps", name, evenAccess, evenUploads, evenSteps))
		}
		if !slices.EqualFunc(bsel, usel, slices.Equal[[]int]) {
			problems = append(problems, fmt.Sprintf("%s: selections differ: %v vs %v", name, bsel, usel))
		}
		if p := reachesDataset(reflect.ValueOf(upc.Server()), "Server", map[uintptr]bool{}); p != "" {
			problems = append(problems, fmt.Sprintf("%s: the server state reaches client data at %s", name, p))
		}
		perAlg[name] = map[string]any{"data_accesses": uc.DataAccesses, "uploads": uc.Uploads, "sgd_steps": uc.SGDSteps,
			"training_rounds": uc.TrainingRounds, "server_rounds": uc.ServerRounds}
	}
	// Odd total: 2T+1 iterations train ⌈(2T+1)/2⌉ = T+1 times.
	odd := up.Schedule{Iterations: 2*T + 1, Upcycled: true, Coef: 0.5}.TrainingRounds()
	if odd != T+1 {
		problems = append(problems, fmt.Sprintf("TrainingRounds(2T+1) = %d, want %d", odd, T+1))
	}
	if staticData {
		problems = append(problems, "EvenStep's parameter types can hold a data.Dataset")
	}
	// Positive controls: the walkers do find client data where it is.
	control := reachesDataset(reflect.ValueOf(&fl.Client{Data: clients[0]}), "Client", map[uintptr]bool{})
	if control == "" || !typeReachesDataset(reflect.TypeOf(fl.Client{}), map[reflect.Type]bool{}) {
		problems = append(problems, "reflection walker failed its positive control (fl.Client holds data)")
	}
	res := proofs.Result{Values: map[string]any{
		"baseline_iterations": T, "upcycled_iterations": 2 * T, "clients": users,
		"evenstep_params": strings.Join(params, ", "), "state_extrapolator": strings.Join(extParams, "; "),
		"counters_by_algorithm": perAlg, "training_rounds_for_2T_plus_1": odd, "walker_positive_control": control,
	}}
	if len(problems) > 0 {
		res.Verdict = proofs.Refuted
		res.Evidence = strings.Join(problems, "; ")
		return res
	}
	res.Verdict = proofs.Holds
	res.Evidence = fmt.Sprintf("All 7 baselines on a %d-client federation (30%% sampling, 50%% stragglers): Upcycled over %d iterations (upcycled.Run) has exactly %d training rounds and %d server rounds; data accesses, uploads, local SGD steps and per-example gradients equal the baseline's over %d rounds (e.g. FedAvg: %v data accesses, %v uploads, %v SGD steps each), every even iteration adds 0 to all of them, and training round k selects the same clients as baseline round k. Type-level: EvenStep(%s) takes only the server state, a scalar and the optional fl.StateExtrapolator (%s); no parameter type can hold a data.Dataset, and a reflection walk of the server state (including each algorithm's dynamic State) after the runs reaches no client data (the same walk finds it in an fl.Client at %s). So data is touched only at odd iterations: the paper's 'only accesses client data at even iterations' is a typo for odd.",
		users, 2*T, T, T, T, perAlg["fedavg"].(map[string]any)["data_accesses"], perAlg["fedavg"].(map[string]any)["uploads"], perAlg["fedavg"].(map[string]any)["sgd_steps"], strings.Join(params, ", "), strings.Join(extParams, "; "), control)
	return res
}

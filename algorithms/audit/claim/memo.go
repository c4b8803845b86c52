package claim

import (
	"fmt"
	"sync"

	"github.com/fedrepro/fedrepro/algorithms/dp/accountant"
)

// Accountant answers are pure functions of (configuration, event, δ), and
// claim files repeat them: the same procedure under several cases, the
// paper audits and the library golden auditing the same claims, noise
// that does not depend on a case's variables. They are memoised per
// process; events are keyed by their String form, whose %g numbers
// round-trip exactly.

type memoAccount struct {
	est accountant.Estimate
	err error
}

type memoCalibrate struct {
	sigma float64
	err   error
}

var (
	memoMu    sync.Mutex
	memoAcc   = map[string]memoAccount{}
	memoCal   = map[string]memoCalibrate{}
	memoLimit = 1 << 16
)

func configKey(c accountant.Config) string {
	return fmt.Sprintf("%v|%v|%v|%v|%v|%v|%v", c.Kind, c.Conversion, c.Neighbouring, c.Orders, c.PLD.Interval, c.PRV.EpsError, c.WorkPoints)
}

// account is safeAccount, memoised.
func account(cfg accountant.Config, e accountant.Event, delta float64) (accountant.Estimate, error) {
	key := fmt.Sprintf("%s|%v|%v", configKey(cfg), e, delta)
	memoMu.Lock()
	v, ok := memoAcc[key]
	memoMu.Unlock()
	if ok {
		return v.est, v.err
	}
	est, err := safeAccount(cfg, e, delta)
	memoMu.Lock()
	if len(memoAcc) < memoLimit {
		memoAcc[key] = memoAccount{est, err}
	}
	memoMu.Unlock()
	return est, err
}

// calibrateMemo is safeCalibrate, memoised on a key naming build's family
// of events.
func calibrateMemo(key string, build func(float64) accountant.Event, target, delta float64, cfg accountant.Config) (float64, error) {
	key = fmt.Sprintf("%s|%s|%v|%v", configKey(cfg), key, target, delta)
	memoMu.Lock()
	v, ok := memoCal[key]
	memoMu.Unlock()
	if ok {
		return v.sigma, v.err
	}
	s, err := safeCalibrate(build, target, delta, cfg)
	memoMu.Lock()
	if len(memoCal) < memoLimit {
		memoCal[key] = memoCalibrate{s, err}
	}
	memoMu.Unlock()
	return s, err
}

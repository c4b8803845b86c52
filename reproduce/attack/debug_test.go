package attack

import (
	"os"
	"testing"
)

func TestDebugRun(t *testing.T) {
	p := os.Getenv("ATTACK_DEBUG")
	if p == "" {
		t.Skip()
	}
	rows, err := Run(p, Options{Seed: 1, Scale: os.Getenv("ATTACK_SCALE"), Only: os.Getenv("ATTACK_ONLY")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("%s claimed %.3g acc %.3g trial %.3g | lb %.3f max %.3f budget %v | mu %.3g [%.3g,%.3g] gdp %.3g | %d/%d %d/%d | %.2fs %s %s", r.ID, r.Claimed, r.Accountant, r.AccountantTrial, r.EpsLB, r.EpsLBMax, r.BudgetLimited, r.Mu, r.MuLo, r.MuHi, r.EpsGDPLo, r.TP, r.FN, r.FP, r.TN, r.WallSeconds, r.Note, r.Skipped)
	}
}

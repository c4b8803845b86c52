// Package audit estimates lower bounds on the privacy loss ε of a mechanism
// from its behaviour: Clopper–Pearson bounds on a distinguisher's TPR/FPR,
// the GDP-based estimate, the Steinke–Nasr–Jagielski one-run bound, and a
// distinguishing-game harness that runs a mechanism on neighbouring inputs
// from named random streams. Paper packages register audits of their own
// mechanisms and privacy figures here; `fedrepro audit --paper X` prints them.
package audit

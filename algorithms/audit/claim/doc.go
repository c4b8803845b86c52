// Package claim audits a published differential-privacy claim described in
// a claim file (YAML, schema fedrepro-claim/1; see claims/README.md).
package claim

package datasets

import "github.com/fedrepro/fedrepro/internal/memo"

// Memo computes the value of each key once per process and shares it
// (internal/memo): the papers keep their loaded and prepared data in one.
type Memo[V any] = memo.Memo[V]

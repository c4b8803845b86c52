package main

// The paper packages register their reproductions, claims and audits in
// init; importing them here is what puts them in the binary.
import (
	_ "github.com/fedrepro/fedrepro/reproduce/fedddpm"
	_ "github.com/fedrepro/fedrepro/reproduce/haar"
	_ "github.com/fedrepro/fedrepro/reproduce/normec"
	_ "github.com/fedrepro/fedrepro/reproduce/upcycled"
)

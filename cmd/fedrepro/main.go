// Command fedrepro reproduces and audits papers on federated learning with
// differential privacy. Run `fedrepro help` for the subcommands.
//
// Each subcommand lives in its own file and registers itself in init; a
// subcommand exists only when it works. Errors print one line naming the
// flag, file or value at fault and exit with status 1 (2 for usage errors).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand.
type command struct {
	Name    string
	Summary string // one line for `fedrepro help`
	// Run parses args (without the subcommand name) and does the work. It
	// returns a usageError for bad flags or arguments.
	Run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.Name]; dup {
		panic("duplicate command " + c.Name)
	}
	commands[c.Name] = c
}

// usageError marks errors caused by how the command was called.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// newFlagSet returns a FlagSet that reports errors through the returned
// error rather than exiting, and prints usage to stderr on -h.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("fedrepro "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args and turns flag errors into usage errors; it also
// rejects stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "fedrepro: unknown command %q (try `fedrepro help`)\n", args[0])
		return 2
	}
	err := c.Run(args[1:], stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "fedrepro %s: %s\n", c.Name, oneLine(err.Error()))
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: fedrepro <command> [flags]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\n`fedrepro <command> -h` lists a command's flags.")
}

// flagSet wraps flag.FlagSet so helpers can return it by pointer.
type flagSet struct{ *flag.FlagSet }

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

	"github.com/fedrepro/fedrepro/internal/buildinfo"
	"github.com/fedrepro/fedrepro/reproduce/paper"
)

// command is one subcommand.
type command struct {
	Name    string
	Summary string // one line for `fedrepro help`
	// Description is the paragraph `fedrepro <name> --help` opens with, and
	// Examples are complete command lines shown under it.
	Description string
	Examples    []string
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

// usageError marks errors caused by how the command was called (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// helpRequest is returned by parseFlags for -h/--help: run prints the
// command's help on stdout and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }

// required marks a flag's usage string: help shows "(required)" and no
// default for it.
const required = "(required) "

// newFlagSet returns a FlagSet that reports errors through the returned
// error, one line, instead of printing the usage.
func newFlagSet(name string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and turns flag errors into usage errors; it also
// rejects stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return helpRequest{fs}
		}
		return usageError{strings.Replace(err.Error(), " -", " --", 1)}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// printUsage writes a command's help: synopsis, description, flags (with
// --flag spelling, required ones marked) and examples.
func printUsage(w io.Writer, c command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: fedrepro %s [flags]\n\n", c.Name)
	desc := c.Description
	if desc == "" {
		desc = c.Summary
	}
	fmt.Fprintf(w, "%s\n", wrap(desc, 78))
	var lines [][2]string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if arg != "" {
			left += " " + arg
		}
		if strings.HasPrefix(usage, required) {
			usage = "(required) " + strings.TrimPrefix(usage, required)
		} else if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "NaN" {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		lines = append(lines, [2]string{left, usage})
		width = max(width, len(left))
	})
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nflags:\n")
		for _, l := range lines {
			fmt.Fprintf(w, "  %-*s  %s\n", width, l[0], l[1])
		}
	}
	if len(c.Examples) > 0 {
		fmt.Fprintf(w, "\nexamples:\n")
		for _, e := range c.Examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// wrap breaks text into lines of at most width runes at spaces.
func wrap(text string, width int) string {
	var out, line strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		wl := len([]rune(word))
		if n > 0 && n+1+wl > width {
			out.WriteString(line.String() + "\n")
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(word)
		n += wl
	}
	out.WriteString(line.String())
	return out.String()
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: fedrepro <command> [flags] (see fedrepro --help for the commands)")
		return 2
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "fedrepro: unknown command %q (see fedrepro --help)\n", args[1])
				return 2
			}
			return run([]string{c.Name, "--help"}, stdout, stderr)
		}
		printHelp(stdout)
		return 0
	case "--version", "-version":
		fmt.Fprintln(stdout, buildinfo.Get().String())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "fedrepro: unknown command %q (see fedrepro --help)\n", args[0])
		return 2
	}
	out := &countingWriter{w: stdout}
	err := c.Run(args[1:], out, stderr)
	var h helpRequest
	switch {
	case err == nil:
		return 0
	case errors.As(err, &h):
		printUsage(stdout, c, h.fs)
		return 0
	}
	code := 1
	var u usageError
	var pu paper.UsageError
	msg := oneLine(err.Error())
	if errors.As(err, &u) || errors.As(err, &pu) {
		code = 2
		fmt.Fprintf(stderr, "fedrepro %s: %s (see fedrepro %s --help)\n", c.Name, msg, c.Name)
	} else {
		fmt.Fprintf(stderr, "fedrepro %s: %s\n", c.Name, msg)
	}
	if wantsJSON(args[1:]) && out.n == 0 {
		_ = writeJSON(stdout, map[string]any{"error": msg, "command": c.Name, "exit_code": code})
	}
	return code
}

// countingWriter counts what a command wrote to stdout, so that a --json
// failure adds {"error": …} only when the command printed no document of
// its own.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// wantsJSON reports whether the command line asked for JSON output (so a
// failure is reported as {"error": …} on stdout as well).
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-json" || a == "--json=true" || a == "-json=true" {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: fedrepro <command> [flags]")
	fmt.Fprintln(w, "\nfedrepro reproduces and audits papers on federated learning with differential privacy.")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\n`fedrepro <command> --help` describes a command, its flags and examples; `fedrepro --version` prints the build.")
}

// flagSet wraps flag.FlagSet so helpers can return it by pointer.
type flagSet struct{ *flag.FlagSet }

// Command queuelab runs load scenarios against the lab's implementations,
// compares benchmark result files and regenerates the results report.
//
//	queuelab <command> [flags]
//
// Run `queuelab help` for the list of commands and `queuelab <command> -h`
// for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand. run receives the arguments after the command
// name and the streams to write to, and returns an error to report; a
// *exitError carries a specific exit code (the regression gate uses it).
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is the list `queuelab help` prints, in that order.
var commands = []command{
	runCommand,
	{"compare", "compare benchmark files: ratios to clientgo, new vs old, or a regression gate", runCompare},
	{"profile", "summarise pprof profiles: top functions and contended call sites", runProfile},
	{"report", "regenerate results/README.md, its charts and the README headline from results/raw", runReport},
}

// exitError asks main to exit with code without printing anything more
// (the command already explained itself).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		var exit *exitError
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &exit):
			return exit.code
		default:
			fmt.Fprintf(stderr, "queuelab %s: %v\n", c.name, err)
			return 2
		}
	}
	fmt.Fprintf(stderr, "queuelab: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: queuelab <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'queuelab <command> -h' for a command's flags.")
}

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestUnknownCommandExplainsItself(t *testing.T) {
	var out, errOut bytes.Buffer
	code := dispatch([]string{"frobnicate"}, &out, &errOut)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), `unknown command "frobnicate"`)
	assert.Contains(t, errOut.String(), "usage: queuelab <command>")
}

func TestHelpListsCommands(t *testing.T) {
	var out bytes.Buffer
	assert.Equal(t, 0, dispatch([]string{"help"}, &out, &out))
	for _, c := range commands {
		assert.Contains(t, out.String(), c.name)
	}
}

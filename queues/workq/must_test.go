package workq

// must unwraps a constructor called with settings the test knows are valid.
func must[Q any](q Q, err error) Q {
	if err != nil {
		panic(err)
	}
	return q
}

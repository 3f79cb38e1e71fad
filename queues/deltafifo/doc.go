// Package deltafifo provides drop-in implementations of client-go's
// DeltaFIFO (cache.Queue popping cache.Deltas), the queue between a Reflector
// and an informer's store.
package deltafifo

// Package fifo provides drop-in implementations of client-go's FIFO
// (cache.Queue holding the latest value per key).
package fifo

// Package stores provides drop-in implementations of client-go's
// cache.ThreadSafeStore (the indexed "threadSafeMap" behind every informer's
// Indexer), each usable as a cache.Indexer through a key-function wrapper.
package stores

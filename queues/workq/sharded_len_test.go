package workq

import (
	"sync"
	"testing"
)

// Len counts the queue at one instant, as client-go's does. A mover keeps
// one or two items queued at every instant (it adds the next item before it
// takes one), so Len never sees an empty queue; summing shards locked in
// turn does, when the new item lands in a shard already read and the taken
// one leaves a shard read later.
func TestShardedLenIsOneInstant(t *testing.T) {
	q := must(NewSharded[int](Options{}))
	defer q.ShutDown()
	q.Add(0)
	const moves = 20000
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		for i := 1; i <= moves; i++ {
			q.Add(i)
			item, _ := q.Get()
			q.Done(item)
		}
	}()
	lens := 0
	for {
		select {
		case <-stop:
			wg.Wait()
			t.Logf("%d Len calls during %d moves", lens, moves)
			return
		default:
		}
		if n := q.Len(); n < 1 || n > 2 {
			wg.Wait()
			t.Fatalf("Len = %d while one or two items were queued at every instant (after %d Len calls)", n, lens)
		}
		lens++
	}
}

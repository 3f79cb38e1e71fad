package informer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/queuelab/queuelab/informer"
)

// TestInformerFactory checks that the factory hands out the lab's informer
// for pods and that the generated typed informer and lister follow the
// fake API server through it.
func TestInformerFactory(t *testing.T) {
	client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	newInformer, err := informer.NewInformerFunc(informer.Options{})
	require.NoError(t, err)
	factory := informers.NewSharedInformerFactory(client, time.Minute)
	ours := podInformerFor(factory, newInformer)
	require.IsType(t, &informer.Informer{}, ours)
	typed := factory.Core().V1().Pods()
	assert.Same(t, ours.GetIndexer(), typed.Informer().GetIndexer(), "the generated informer is ours")

	added := make(chan string, 10)
	_, err = typed.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*corev1.Pod).Name },
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		require.True(t, ok, "%v not synced", typ)
	}
	assert.Equal(t, "a", <-added)

	_, err = client.CoreV1().Pods("ns").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "b", <-added)
	pods, err := typed.Lister().Pods("ns").List(labels.Everything())
	require.NoError(t, err)
	assert.Len(t, pods, 2)
	byNS, err := typed.Informer().GetIndexer().ByIndex(cache.NamespaceIndex, "ns")
	require.NoError(t, err)
	assert.Len(t, byNS, 2, "the factory's namespace index")
}

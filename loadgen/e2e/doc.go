// Package e2e runs the lab's controller scenarios against a real API
// server: kube-apiserver and etcd started by controller-runtime's envtest
// from KUBEBUILDER_ASSETS, writers going through a clientset and the
// controllers' informers watching over HTTP — the controllers themselves
// unchanged. It is kept out of CI behind the e2e build tag; `make e2e`
// builds what is missing (assets.sh) and runs it.
package e2e

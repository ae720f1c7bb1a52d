package brookprom_test

import (
	"log"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/brook-io/brook/client-go/brook"
	"github.com/brook-io/brook/client-go/brookprom"
)

// Serves a producer's and a consumer's metrics on :9091/metrics. The
// collectors read the clients' Stats at each scrape.
func Example() {
	producer, err := brook.NewProducer(brook.WithBroker("localhost:7070"))
	if err != nil {
		log.Fatal(err)
	}
	consumer, err := brook.NewConsumer(brook.WithBroker("localhost:7070"), brook.WithGroup("billing"),
		brook.WithTopics("orders"))
	if err != nil {
		log.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		brookprom.NewProducerCollector(producer, prometheus.Labels{"client": "orders-writer"}),
		brookprom.NewConsumerCollector(consumer, prometheus.Labels{"client": "billing"}),
	)
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	go func() { log.Println(http.ListenAndServe("localhost:9091", nil)) }()
	// ... produce and poll as usual; close both at the end.
}

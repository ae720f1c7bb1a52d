{{/* Names, labels and the settings several templates share. */}}

{{- define "brook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The full name: fullnameOverride, else "<release>-<name>" (just the release when it has the name). */}}
{{- define "brook.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "brook.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "brook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "brook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "brook.labels" -}}
helm.sh/chart: {{ include "brook.chart" . }}
{{ include "brook.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: brook
{{- end }}

{{- define "brook.headlessName" -}}
{{- printf "%s-headless" (include "brook.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "brook.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "brook.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "brook.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The Secret with tls.crt, tls.key and ca.crt: the user's or the generated one. */}}
{{- define "brook.tlsSecretName" -}}
{{- .Values.tls.existingSecret | default (printf "%s-tls" (include "brook.fullname" .)) }}
{{- end }}

{{/* The Secret with the tokens file: the user's or the generated one. */}}
{{- define "brook.tokensSecretName" -}}
{{- .Values.auth.existingSecret | default (printf "%s-tokens" (include "brook.fullname" .)) }}
{{- end }}

{{/* The principals the chart generates tokens for, one per line: auth.principals, the helm test's
     and the ServiceMonitor's (when those are on), without repeats. */}}
{{- define "brook.generatedPrincipals" -}}
{{- $p := .Values.auth.principals }}
{{- if .Values.tests.enabled }}{{ $p = append $p .Values.tests.principal }}{{ end }}
{{- if .Values.metrics.serviceMonitor.enabled }}{{ $p = append $p .Values.metrics.serviceMonitor.principal }}{{ end }}
{{- $p | uniq | join "\n" }}
{{- end }}

{{/* The Secret and key holding the helm test's token alone. */}}
{{- define "brook.testTokenSecret" -}}
{{- if .Values.auth.existingSecret }}
{{- if not (and .Values.tests.tokenSecret.name .Values.tests.tokenSecret.key) }}
{{- fail "tests.tokenSecret.name and tests.tokenSecret.key: set them (a token of tests.principal) when auth.enabled with auth.existingSecret and tests.enabled, or set tests.enabled=false" }}
{{- end }}
{{- dict "name" .Values.tests.tokenSecret.name "key" .Values.tests.tokenSecret.key | toJson }}
{{- else }}
{{- dict "name" (include "brook.tokensSecretName" .) "key" (printf "token-%s" .Values.tests.principal) | toJson }}
{{- end }}
{{- end }}

{{/* The Secret and key holding the ServiceMonitor's bearer token alone. */}}
{{- define "brook.metricsTokenSecret" -}}
{{- $sm := .Values.metrics.serviceMonitor }}
{{- if $sm.bearerTokenSecret.name }}
{{- dict "name" $sm.bearerTokenSecret.name "key" (required "metrics.serviceMonitor.bearerTokenSecret.key: set it with bearerTokenSecret.name" $sm.bearerTokenSecret.key) | toJson }}
{{- else if .Values.auth.existingSecret }}
{{- fail "metrics.serviceMonitor.bearerTokenSecret: set name and key (a Secret holding a token alone) when auth.enabled with auth.existingSecret and the ServiceMonitor on" }}
{{- else }}
{{- dict "name" (include "brook.tokensSecretName" .) "key" (printf "token-%s" $sm.principal) | toJson }}
{{- end }}
{{- end }}

{{/* The address the Kafka listener advertises (kafka.advertised): the value, else the client
     Service's in-cluster name and Kafka port. */}}
{{- define "brook.kafkaAdvertised" -}}
{{- .Values.kafka.advertised | default (printf "%s.%s.svc.%s:%d" (include "brook.fullname" .) .Release.Namespace .Values.clusterDomain (int .Values.service.ports.kafka)) }}
{{- end }}

{{/* The host of the advertised address, without IPv6 brackets. */}}
{{- define "brook.kafkaAdvertisedHost" -}}
{{- regexReplaceAll ":[0-9]+$" (include "brook.kafkaAdvertised" .) "" | trimPrefix "[" | trimSuffix "]" }}
{{- end }}

{{/* HTTP or HTTPS, for the probes and the ServiceMonitor. */}}
{{- define "brook.httpScheme" -}}
{{- if .Values.tls.enabled }}HTTPS{{ else }}HTTP{{ end }}
{{- end }}

{{/* The properties file the broker reads (BROOK_CONFIG): the chart's keys, then config's. */}}
{{- define "brook.properties" -}}
# Brook broker settings, made by the Helm chart from its values (config, tls, auth).
# The data directory and the listen addresses come from the environment (BROOK_DATA_DIR,
# BROOK_GRPC_LISTEN, BROOK_HTTP_LISTEN, BROOK_KAFKA_LISTEN, BROOK_KAFKA_ADVERTISED), which takes
# precedence over this file.
{{- if .Values.tls.enabled }}
tls.cert.file = /etc/brook/tls/tls.crt
tls.key.file = /etc/brook/tls/tls.key
{{- if .Values.tls.clientCA.existingSecret }}
tls.client.ca.file = /etc/brook/client-ca/ca.crt
tls.client.auth = optional
{{- end }}
{{- end }}
{{- if .Values.auth.enabled }}
auth.enabled = true
auth.anonymous = {{ .Values.auth.anonymous }}
auth.tokens.file = /etc/brook/auth/tokens
auth.permissions.file = /etc/brook/config/permissions
{{- end }}
{{- range $key := keys .Values.config | sortAlpha }}
{{- $v := index $.Values.config $key }}
{{ $key }} = {{ if or (kindIs "string" $v) (kindIs "bool" $v) }}{{ $v }}{{ else }}{{ $v | int64 }}{{ end }}
{{- end }}
{{- with .Values.forward.routes }}
# Forward routes (forward.routes): read once at start.
{{- end }}
{{- range $route := keys .Values.forward.routes | sortAlpha }}
{{- $r := index $.Values.forward.routes $route }}
{{- range $key := keys $r | sortAlpha }}
{{- $v := index $r $key }}
{{- /* a properties file reads \ as an escape: a value's backslashes are written doubled */}}
forward.{{ $route }}.{{ $key }} = {{ if kindIs "string" $v }}{{ $v | replace "\\" "\\\\" }}{{ else if kindIs "bool" $v }}{{ $v }}{{ else }}{{ $v | int64 }}{{ end }}
{{- end }}
{{- end }}
{{ end }}

{{/* The permissions file (auth.permissions.file): auth.permissions, then the helm test's line. */}}
{{- define "brook.permissions" -}}
# Permissions: principal permissions resource (made by the Helm chart from auth.permissions).
{{- range .Values.auth.permissions }}
{{ .principal }} {{ join "," .permissions }} {{ .resource }}
{{- end }}
{{- if .Values.tests.enabled }}
# The helm test pod's principal: its own topic only.
{{ .Values.tests.principal }} produce,consume,admin topic:{{ .Values.tests.topic }}
{{- end }}
{{ end }}

{{/* "true" when the Kafka listener is on (kafka.enabled). Under auth.enabled its clients authenticate
with SASL (PLAIN, SCRAM-SHA-256/512) against the same tokens file and permissions as gRPC, or with a
client certificate (D57): the pod already mounts both, so nothing else is needed. */}}
{{- define "brook.kafkaOn" -}}
{{- if .Values.kafka.enabled }}true{{ end }}
{{- end }}

{{/* Checks of values that the schema cannot express. */}}
{{- define "brook.validate" -}}
{{- $graceMs := 5000 }}
{{- if hasKey .Values.config "shutdown.grace.ms" }}{{ $graceMs = index .Values.config "shutdown.grace.ms" | int64 }}{{ end }}
{{- if lt (mul .Values.terminationGracePeriodSeconds 1000 | int64) (add $graceMs 10000 | int64) }}
{{- fail (printf "terminationGracePeriodSeconds: %d s is not comfortably above shutdown.grace.ms (%d ms): give at least shutdown.grace.ms + 10 s" (int64 .Values.terminationGracePeriodSeconds) $graceMs) }}
{{- end }}
{{- $ext := .Values.kafka.external }}
{{- if $ext.enabled }}
{{- if not .Values.kafka.enabled }}
{{- fail "kafka.external.enabled: the Kafka listener is off (kafka.enabled=false): turn it on or the external Service off" }}
{{- end }}
{{- if not .Values.kafka.advertised }}
{{- fail "kafka.advertised: set it with kafka.external.enabled, to the address clients outside the cluster reach (a node's address and kafka.external.nodePort, or the load balancer's name and kafka.external.port): the listener advertises one address, which every client dials after bootstrapping" }}
{{- end }}
{{- $advPort := regexFind "[0-9]+$" .Values.kafka.advertised | int }}
{{- if eq $ext.type "NodePort" }}
{{- if not $ext.nodePort }}
{{- fail "kafka.external.nodePort: set it with kafka.external.type=NodePort (the advertised port must be the node port, so Kubernetes may not choose it)" }}
{{- end }}
{{- if ne $advPort (int $ext.nodePort) }}
{{- fail (printf "kafka.advertised: port %d is not kafka.external.nodePort %d, where clients outside the cluster reach the listener" $advPort (int $ext.nodePort)) }}
{{- end }}
{{- else if ne $advPort (int $ext.port) }}
{{- fail (printf "kafka.advertised: port %d is not kafka.external.port %d, where the load balancer takes Kafka clients" $advPort (int $ext.port)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Chart name, cut to the 63 characters a label value allows. */}}
{{- define "toolgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of every object: the release name, with the chart's unless it already holds it. */}}
{{- define "toolgate.fullname" -}}
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

{{- define "toolgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "toolgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "toolgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "toolgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "toolgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "toolgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "toolgate.secretName" -}}
{{- default (include "toolgate.fullname" .) .Values.auth.existingSecret }}
{{- end }}

{{/* How many token-N keys the Secret holds. */}}
{{- define "toolgate.tokenCount" -}}
{{- if .Values.auth.existingSecret }}
{{- int .Values.auth.tokenCount }}
{{- else if .Values.auth.tokens }}
{{- len .Values.auth.tokens }}
{{- else }}
{{- 1 }}
{{- end }}
{{- end }}

{{/* Host names the gateway accepts, as quoted HCL list items: its Service's DNS names, the Ingress hosts and any given. The pod IP is added in the config itself. */}}
{{- define "toolgate.allowedHosts" -}}
{{- $svc := include "toolgate.fullname" . }}
{{- $hosts := list $svc (printf "%s.%s" $svc .Release.Namespace) (printf "%s.%s.svc" $svc .Release.Namespace) (printf "%s.%s.svc.%s" $svc .Release.Namespace .Values.clusterDomain) }}
{{- if .Values.ingress.enabled }}
{{- range .Values.ingress.hosts }}
{{- $hosts = append $hosts .host }}
{{- end }}
{{- end }}
{{- concat $hosts .Values.gateway.allowedHosts | uniq | toJson | trimPrefix "[" | trimSuffix "]" }}
{{- end }}

{{/*
Labels on every object (the component label is written next to each include).
The chart uses a small, fixed subset of Go templates (see README.md): keep to it.
*/}}
{{- define "svc-zero.labels" -}}
app.kubernetes.io/name: svc-zero
app.kubernetes.io/part-of: svc-zero
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}

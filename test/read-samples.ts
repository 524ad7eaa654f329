// A valid request for every read route (route-matrix and hostile-read use them): the route key
// `METHOD path` → the path to call (params filled in) and the JSON body of a POST.
export interface ReadSample {
  path: string;
  body?: Record<string, unknown>;
}

export function readSamples(w: { from: string; to: string }): Record<string, ReadSample> {
  return {
    'GET /v1/requests/:id': { path: '/v1/requests/g-3' },
    'GET /v1/labels/:dimension': { path: '/v1/labels/tenant' },
    'POST /v1/query': { path: '/v1/query', body: { ...w, group_by: ['tenant', 'model'], measures: ['count', 'error_rate'] } },
    'POST /v1/events/search': { path: '/v1/events/search', body: { ...w, limit: 500 } },
    'POST /v1/histogram': { path: '/v1/histogram', body: { ...w } },
    'POST /v1/analysis/errors': { path: '/v1/analysis/errors', body: { ...w, min_support: 1 } },
    'POST /v1/analysis/stages': { path: '/v1/analysis/stages', body: { ...w } },
    'POST /v1/analysis/saturation': { path: '/v1/analysis/saturation', body: { ...w } },
    'POST /v1/resources/query': { path: '/v1/resources/query', body: { ...w, metrics: ['gpu_utilization_ratio'], group_by: ['node'] } },
    'POST /v1/analysis/capacity': { path: '/v1/analysis/capacity', body: { ...w } },
    'GET /v1/audit': { path: '/v1/audit' },
    'POST /v1/compare': { path: '/v1/compare', body: { ...w, baseline: { filters: { model_version: 'v1' } }, candidate: { filters: { model_version: 'v2' } }, min_requests: 1 } },
    'POST /v1/samples/search': { path: '/v1/samples/search', body: { ...w, limit: 1000 } },
    'POST /v1/quality/summary': { path: '/v1/quality/summary', body: { ...w, group_by: ['tenant'] } },
    'POST /v1/quality/drift': { path: '/v1/quality/drift', body: { ...w } },
    'POST /v1/quality/feedback': { path: '/v1/quality/feedback', body: { ...w, group_by: ['tenant'] } },
    'GET /v1/golden/sets': { path: '/v1/golden/sets' },
    'GET /v1/golden/results': { path: `/v1/golden/results?from=${w.from}&to=${w.to}` },
    'GET /v1/alerts': { path: '/v1/alerts' },
    'GET /v1/incidents': { path: '/v1/incidents' },
    'GET /v1/silences': { path: '/v1/silences' },
    'GET /v1/actions': { path: '/v1/actions' },
    'GET /v1/rules': { path: '/v1/rules' },
  };
}

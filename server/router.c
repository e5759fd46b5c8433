/* router.c: the route table and path matching. */
#include "router.h"

#include <stdio.h>
#include <string.h>

#include "handlers.h"

static const ari_route routes[] = {
    {"GET", "/api/v1/health", ARI_SCOPE_NONE, ARI_BODY_NONE, api_health},
    {"GET", "/api/v1/version", ARI_SCOPE_NONE, ARI_BODY_NONE, api_version},
    {"GET", "/api/v1/openapi.json", ARI_SCOPE_NONE, ARI_BODY_NONE, api_openapi},
    {"GET", "/api/v1/traces", ARI_SCOPE_READ, ARI_BODY_NONE, api_traces_list},
    {"POST", "/api/v1/traces", ARI_SCOPE_WRITE, ARI_BODY_UPLOAD, api_traces_upload},
    {"GET", "/api/v1/traces/{}", ARI_SCOPE_READ, ARI_BODY_NONE, api_traces_get},
    {"PATCH", "/api/v1/traces/{}", ARI_SCOPE_WRITE, ARI_BODY_JSON, api_traces_patch},
    {"DELETE", "/api/v1/traces/{}", ARI_SCOPE_WRITE, ARI_BODY_NONE, api_traces_delete},
    {"GET", "/api/v1/traces/{}/progression", ARI_SCOPE_READ, ARI_BODY_NONE, api_progression},
    {"GET", "/api/v1/traces/{}/supergraph", ARI_SCOPE_READ, ARI_BODY_NONE, api_supergraph},
    {"GET", "/api/v1/traces/{}/gantt", ARI_SCOPE_READ, ARI_BODY_NONE, api_gantt},
    {"GET", "/api/v1/traces/{}/bounds", ARI_SCOPE_READ, ARI_BODY_NONE, api_bounds},
    {"GET", "/api/v1/traces/{}/outliers", ARI_SCOPE_READ, ARI_BODY_NONE, api_outliers},
    {"GET", "/api/v1/traces/{}/timeseries", ARI_SCOPE_READ, ARI_BODY_NONE, api_timeseries},
    {"GET", "/api/v1/traces/{}/iterations", ARI_SCOPE_READ, ARI_BODY_NONE, api_iterations},
    {"GET", "/api/v1/traces/{}/panels", ARI_SCOPE_READ, ARI_BODY_NONE, api_panels},
    {"GET", "/api/v1/traces/{}/critical-path", ARI_SCOPE_READ, ARI_BODY_NONE, api_critical_path},
    {"GET", "/api/v1/traces/{}/anomalies", ARI_SCOPE_READ, ARI_BODY_NONE, api_anomalies},
    {"GET", "/api/v1/traces/{}/models", ARI_SCOPE_READ, ARI_BODY_NONE, api_models},
    {"GET", "/api/v1/traces/{}/atree", ARI_SCOPE_READ, ARI_BODY_NONE, api_atree},
    {"GET", "/api/v1/traces/{}/tree-utilization", ARI_SCOPE_READ, ARI_BODY_NONE, api_tree_utilization},
    {"GET", "/api/v1/traces/{}/tree-memory", ARI_SCOPE_READ, ARI_BODY_NONE, api_tree_memory},
    {"GET", "/api/v1/traces/{}/tree-compare", ARI_SCOPE_READ, ARI_BODY_NONE, api_tree_compare},
    {"GET", "/api/v1/traces/{}/aggregation", ARI_SCOPE_READ, ARI_BODY_NONE, api_aggregation},
    {"GET", "/api/v1/traces/{}/aggregation/levels", ARI_SCOPE_READ, ARI_BODY_NONE, api_aggregation_levels},
    {"GET", "/api/v1/traces/{}/states", ARI_SCOPE_READ, ARI_BODY_NONE, api_states},
    {"GET", "/api/v1/traces/{}/links", ARI_SCOPE_READ, ARI_BODY_NONE, api_links},
    {"GET", "/api/v1/traces/{}/messages", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_messages},
    {"GET", "/api/v1/traces/{}/comm-matrix", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_comm_matrix},
    {"GET", "/api/v1/traces/{}/message-histogram", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_message_histogram},
    {"GET", "/api/v1/traces/{}/comm-over-time", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_comm_over_time},
    {"GET", "/api/v1/traces/{}/wait-states", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_wait_states},
    {"GET", "/api/v1/traces/{}/timeline", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_timeline},
    {"GET", "/api/v1/traces/{}/flat-profile", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_flat_profile},
    {"GET", "/api/v1/traces/{}/time-profile", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_time_profile},
    {"GET", "/api/v1/traces/{}/load-imbalance", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_load_imbalance},
    {"GET", "/api/v1/traces/{}/idle-time", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_idle_time},
    {"GET", "/api/v1/traces/{}/caller-callee", ARI_SCOPE_READ, ARI_BODY_NONE, api_event_caller_callee},
    {"GET", "/api/v1/compare", ARI_SCOPE_READ, ARI_BODY_NONE, api_compare},
    {"GET", "/api/v1/traces/{}/cct", ARI_SCOPE_READ, ARI_BODY_NONE, api_profiles_cct},
    {"GET", "/api/v1/traces/{}/nodes/{}/ranks", ARI_SCOPE_READ, ARI_BODY_NONE, api_profiles_node_ranks},
    {"GET", "/api/v1/traces/{}/scatter", ARI_SCOPE_READ, ARI_BODY_NONE, api_profiles_scatter},
    {"GET", "/api/v1/traces/{}/tree", ARI_SCOPE_READ, ARI_BODY_NONE, api_profiles_tree},
    {"GET", "/api/v1/traces/{}/movements", ARI_SCOPE_READ, ARI_BODY_NONE, api_dm_movements},
    {"GET", "/api/v1/traces/{}/movement-matrix", ARI_SCOPE_READ, ARI_BODY_NONE, api_dm_matrix},
    {"GET", "/api/v1/traces/{}/movement-timeline", ARI_SCOPE_READ, ARI_BODY_NONE, api_dm_timeline},
    {"GET", "/api/v1/traces/{}/clock", ARI_SCOPE_READ, ARI_BODY_NONE, api_dm_clock},
    {"GET", "/api/v1/traces/{}/topology", ARI_SCOPE_READ, ARI_BODY_NONE, api_dm_topology},
    {"GET", "/api/v1/traces/{}/metric-series", ARI_SCOPE_READ, ARI_BODY_NONE, api_dm_metrics},
    {"GET", "/api/v1/topology", ARI_SCOPE_READ, ARI_BODY_NONE, api_topology},
    {"GET", "/api/v1/traces/{}/series", ARI_SCOPE_READ, ARI_BODY_NONE, api_metrics_series},
    {"GET", "/api/v1/traces/{}/overview", ARI_SCOPE_READ, ARI_BODY_NONE, api_metrics_overview},
    {"POST", "/api/v1/traces/{}/cluster", ARI_SCOPE_READ, ARI_BODY_JSON, api_metrics_cluster},
    {"POST", "/api/v1/traces/{}/projection", ARI_SCOPE_READ, ARI_BODY_JSON, api_metrics_projection},
    {"POST", "/api/v1/traces/{}/changepoints", ARI_SCOPE_READ, ARI_BODY_JSON, api_metrics_changepoints},
    {"POST", "/api/v1/traces/{}/comm/segments", ARI_SCOPE_READ, ARI_BODY_JSON, api_metrics_comm_segments},
    {"GET", "/api/v1/analyses/{}", ARI_SCOPE_READ, ARI_BODY_NONE, api_analyses_get},
    {"DELETE", "/api/v1/analyses/{}", ARI_SCOPE_READ, ARI_BODY_NONE, api_analyses_delete},
    {"GET", "/api/v1/ensembles", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensembles_list},
    {"POST", "/api/v1/ensembles", ARI_SCOPE_WRITE, ARI_BODY_JSON, api_ensembles_create},
    {"GET", "/api/v1/ensembles/{}", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensembles_get},
    {"PATCH", "/api/v1/ensembles/{}", ARI_SCOPE_WRITE, ARI_BODY_JSON, api_ensembles_patch},
    {"DELETE", "/api/v1/ensembles/{}", ARI_SCOPE_WRITE, ARI_BODY_NONE, api_ensembles_delete},
    {"POST", "/api/v1/ensembles/{}/members", ARI_SCOPE_WRITE, ARI_BODY_JSON, api_ensemble_members_add},
    {"DELETE", "/api/v1/ensembles/{}/members/{}", ARI_SCOPE_WRITE, ARI_BODY_NONE, api_ensemble_members_delete},
    {"POST", "/api/v1/ensembles/{}/parameters", ARI_SCOPE_WRITE, ARI_BODY_UPLOAD, api_ensemble_parameters_csv},
    {"GET", "/api/v1/ensembles/{}/stats", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_stats},
    {"GET", "/api/v1/ensembles/{}/scaling", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_scaling},
    {"GET", "/api/v1/ensembles/{}/projection", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_projection},
    {"GET", "/api/v1/ensembles/{}/scatter", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_scatter},
    {"GET", "/api/v1/ensembles/{}/supergraph", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_supergraph},
    {"GET", "/api/v1/ensembles/{}/nodes/{}/histogram", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_node_histogram},
    {"GET", "/api/v1/ensembles/{}/nodes/{}/boxplots", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_node_boxplots},
    {"GET", "/api/v1/ensembles/{}/nodes/{}/gradients", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_node_gradients},
    {"GET", "/api/v1/ensembles/{}/nodes/{}/hierarchy", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_node_hierarchy},
    {"GET", "/api/v1/ensembles/{}/diff", ARI_SCOPE_READ, ARI_BODY_NONE, api_ensemble_diff},
    {"GET", "/api/v1/streams", ARI_SCOPE_READ, ARI_BODY_NONE, api_streams_list},
    {"POST", "/api/v1/streams", ARI_SCOPE_WRITE, ARI_BODY_JSON, api_streams_create},
    {"GET", "/api/v1/streams/{}", ARI_SCOPE_READ, ARI_BODY_NONE, api_streams_get},
    /* the run's write token is checked by the handler (api_streams.c) */
    {"POST", "/api/v1/streams/{}/samples", ARI_SCOPE_NONE, ARI_BODY_UPLOAD, api_stream_samples},
    {"POST", "/api/v1/streams/{}/close", ARI_SCOPE_NONE, ARI_BODY_NONE, api_stream_close},
    {"GET", "/api/v1/streams/{}/events", ARI_SCOPE_READ, ARI_BODY_NONE, api_stream_events},
    {"GET", "/api/v1/streams/{}/state", ARI_SCOPE_READ, ARI_BODY_NONE, api_stream_state},
    {"POST", "/api/v1/streams/{}/control", ARI_SCOPE_READ, ARI_BODY_JSON, api_stream_control},
    {"GET", "/api/v1/streams/{}/comm", ARI_SCOPE_READ, ARI_BODY_NONE, api_stream_comm},
    {"GET", "/api/v1/streams/{}/comm/diff", ARI_SCOPE_READ, ARI_BODY_NONE, api_stream_comm_diff},
    {"GET", "/api/v1/jobs", ARI_SCOPE_READ, ARI_BODY_NONE, api_jobs_list},
    {"GET", "/api/v1/jobs/{}", ARI_SCOPE_READ, ARI_BODY_NONE, api_jobs_get},
    {"GET", "/api/v1/tokens", ARI_SCOPE_ADMIN, ARI_BODY_NONE, api_tokens_list},
    {"POST", "/api/v1/tokens", ARI_SCOPE_ADMIN, ARI_BODY_JSON, api_tokens_create},
    {"DELETE", "/api/v1/tokens/{}", ARI_SCOPE_ADMIN, ARI_BODY_NONE, api_tokens_revoke},
};

const ari_route *ari_routes(size_t *n)
{
    *n = sizeof routes / sizeof routes[0];
    return routes;
}

/* Matches url against pattern segment by segment; a trailing slash on the
 * url is ignored. Captures "{}" segments into r->params. */
static int match(const char *pattern, const char *url, ari_request *r)
{
    int nparams = 0;
    const char *p = pattern, *u = url;
    while (*p && *u) {
        if (p[0] == '{' && p[1] == '}') {
            size_t len = strcspn(u, "/");
            if (len == 0 || len >= sizeof r->params[0] || nparams == ARI_MAX_PATH_PARAMS)
                return 0;
            memcpy(r->params[nparams], u, len);
            r->params[nparams][len] = '\0';
            nparams++;
            p += 2;
            u += len;
        } else if (*p == *u) {
            p++;
            u++;
        } else {
            return 0;
        }
    }
    if (*p || (*u && strcmp(u, "/") != 0))
        return 0;
    r->nparams = nparams;
    return 1;
}

ari_match ari_route_find(ari_request *r, char *allow, size_t allow_size)
{
    size_t used = 0;
    allow[0] = '\0';
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (!match(routes[i].pattern, r->url, r))
            continue;
        if (strcmp(routes[i].method, r->method) == 0) {
            r->route = &routes[i];
            return ARI_MATCH_FOUND;
        }
        if (used < allow_size)
            used += (size_t)snprintf(allow + used, allow_size - used, "%s%s", used ? ", " : "",
                                     routes[i].method);
    }
    return used ? ARI_MATCH_NO_METHOD : ARI_MATCH_NO_PATH;
}

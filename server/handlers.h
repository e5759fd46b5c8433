/* handlers.h: every API handler, one file per resource (api_*.c). */
#ifndef ARIADNE_HANDLERS_H
#define ARIADNE_HANDLERS_H

#include "server.h"

/* api_meta.c */
enum MHD_Result api_health(ari_request *r);
enum MHD_Result api_version(ari_request *r);
enum MHD_Result api_openapi(ari_request *r);
/* api_traces.c */
enum MHD_Result api_traces_list(ari_request *r);
enum MHD_Result api_traces_get(ari_request *r);
enum MHD_Result api_traces_patch(ari_request *r);
enum MHD_Result api_traces_delete(ari_request *r);
enum MHD_Result api_traces_upload(ari_request *r);
/* api_progression.c */
enum MHD_Result api_progression(ari_request *r);
/* api_supergraph.c */
enum MHD_Result api_supergraph(ari_request *r);
/* task-trace analyses (filters.h): api_gantt.c, api_bounds.c, api_outliers.c,
 * api_timeseries.c (timeseries, iterations), api_critical_path.c, api_compare.c */
enum MHD_Result api_gantt(ari_request *r);
/* Makes every import of this process (serve's uploads, the import command)
 * also prepare the first Gantt of the trace (store/gantt_rows.h): call once
 * at start-up. */
void api_gantt_prepare_at_import(void);
enum MHD_Result api_bounds(ari_request *r);
enum MHD_Result api_outliers(ari_request *r);
enum MHD_Result api_timeseries(ari_request *r);
enum MHD_Result api_iterations(ari_request *r);
/* api_panels.c: memory, GPU/MPI bandwidth and GFlop/s panels under the Gantt */
enum MHD_Result api_panels(ari_request *r);
enum MHD_Result api_critical_path(ari_request *r);
enum MHD_Result api_compare(ari_request *r);
/* regression anomalies (api_anomalies.c) and elimination-tree panels
 * (api_elimination_tree.c), task-trace analyses too */
enum MHD_Result api_anomalies(ari_request *r);
enum MHD_Result api_models(ari_request *r);
enum MHD_Result api_atree(ari_request *r);
enum MHD_Result api_tree_utilization(ari_request *r);
enum MHD_Result api_tree_memory(ari_request *r);
enum MHD_Result api_tree_compare(ari_request *r);
/* api_pic.c: pIC aggregation of the hierarchy (Paje and task traces) */
enum MHD_Result api_aggregation(ari_request *r);
enum MHD_Result api_aggregation_levels(ari_request *r);
/* api_states.c: the timeline of Paje states by container, and the links */
enum MHD_Result api_states(ari_request *r);
enum MHD_Result api_links(ari_request *r);
/* api_jobs.c */
enum MHD_Result api_jobs_list(ari_request *r);
enum MHD_Result api_jobs_get(ari_request *r);
/* api_tokens.c */
enum MHD_Result api_tokens_list(ari_request *r);
enum MHD_Result api_tokens_create(ari_request *r);
enum MHD_Result api_tokens_revoke(ari_request *r);
/* api_profiles.c */
enum MHD_Result api_profiles_cct(ari_request *r);
enum MHD_Result api_profiles_node_ranks(ari_request *r);
enum MHD_Result api_profiles_scatter(ari_request *r);
enum MHD_Result api_profiles_tree(ari_request *r);
/* static_files.c: everything outside /api/ */
enum MHD_Result ari_serve_static(ari_request *r);

/* api_datamove.c */
enum MHD_Result api_dm_movements(ari_request *r);
enum MHD_Result api_dm_matrix(ari_request *r);
enum MHD_Result api_dm_timeline(ari_request *r);
enum MHD_Result api_dm_clock(ari_request *r);
enum MHD_Result api_dm_topology(ari_request *r);
enum MHD_Result api_dm_metrics(ari_request *r);
enum MHD_Result api_topology(ari_request *r);

/* api_metrics.c: sampled-metrics (pdes) traces: dense series and the overview */
enum MHD_Result api_metrics_series(ari_request *r);
enum MHD_Result api_metrics_overview(ari_request *r);
/* api_metrics_analysis.c, api_metrics_comm.c: analyses of a selection of a pdes trace (200, or 202
 * and a background run); api_analyses.c: those runs (analysis_runs.h) */
enum MHD_Result api_metrics_cluster(ari_request *r);
enum MHD_Result api_metrics_projection(ari_request *r);
enum MHD_Result api_metrics_changepoints(ari_request *r);
enum MHD_Result api_metrics_comm_segments(ari_request *r);
enum MHD_Result api_analyses_get(ari_request *r);
enum MHD_Result api_analyses_delete(ari_request *r);

/* api_ensembles.c: ensembles of profiles */
enum MHD_Result api_ensembles_list(ari_request *r);
enum MHD_Result api_ensembles_create(ari_request *r);
enum MHD_Result api_ensembles_get(ari_request *r);
enum MHD_Result api_ensembles_patch(ari_request *r);
enum MHD_Result api_ensembles_delete(ari_request *r);
/* api_ensemble_members.c: members and CSV parameters of an ensemble */
enum MHD_Result api_ensemble_members_add(ari_request *r);
enum MHD_Result api_ensemble_members_delete(ari_request *r);
enum MHD_Result api_ensemble_parameters_csv(ari_request *r);
/* api_ensemble_stats.c: statistics and scaling models across an ensemble */
enum MHD_Result api_ensemble_stats(ari_request *r);
enum MHD_Result api_ensemble_scaling(ari_request *r);
/* api_ensemble_projection.c: parameter projection (MDS + k-means) and metric scatter of an ensemble */
enum MHD_Result api_ensemble_projection(ari_request *r);
enum MHD_Result api_ensemble_scatter(ari_request *r);
/* api_ensemble_supergraph.c, api_ensemble_nodes.c, api_ensemble_diff.c: the ensemble super
 * graph, its nodes' histograms, boxplots and gradients, and the diff of two members */
enum MHD_Result api_ensemble_supergraph(ari_request *r);
enum MHD_Result api_ensemble_node_histogram(ari_request *r);
enum MHD_Result api_ensemble_node_boxplots(ari_request *r);
enum MHD_Result api_ensemble_node_gradients(ari_request *r);
/* api_ensemble_hierarchy.c: the supernode hierarchy (icicle) of the ensemble super graph */
enum MHD_Result api_ensemble_node_hierarchy(ari_request *r);
enum MHD_Result api_ensemble_diff(ari_request *r);

/* api_streams.c: live runs, the producer's side: create, samples, close, list, get */
enum MHD_Result api_streams_create(ari_request *r);
enum MHD_Result api_streams_list(ari_request *r);
enum MHD_Result api_streams_get(ari_request *r);
enum MHD_Result api_stream_samples(ari_request *r);
enum MHD_Result api_stream_close(ari_request *r);
/* api_stream_events.c: watching a live run (live_hub.h): events (SSE), state, controls, comm */
enum MHD_Result api_stream_events(ari_request *r);
enum MHD_Result api_stream_state(ari_request *r);
enum MHD_Result api_stream_control(ari_request *r);
enum MHD_Result api_stream_comm(ari_request *r);
enum MHD_Result api_stream_comm_diff(ari_request *r);

/* api_event_comm.c, api_event_timeline.c: the communication analyses and
 * the timeline of an event trace (kind "events", issue 19) */
enum MHD_Result api_event_messages(ari_request *r);
enum MHD_Result api_event_comm_matrix(ari_request *r);
enum MHD_Result api_event_message_histogram(ari_request *r);
enum MHD_Result api_event_comm_over_time(ari_request *r);
enum MHD_Result api_event_wait_states(ari_request *r);
enum MHD_Result api_event_timeline(ari_request *r);

/* api_event_profile.c: the function analyses of an event trace (kind
 * "events", issue 19; Pipit's flat_profile, time_profile, load_imbalance,
 * idle_time and caller-callee) */
enum MHD_Result api_event_flat_profile(ari_request *r);
enum MHD_Result api_event_time_profile(ari_request *r);
enum MHD_Result api_event_load_imbalance(ari_request *r);
enum MHD_Result api_event_idle_time(ari_request *r);
enum MHD_Result api_event_caller_callee(ari_request *r);

#endif

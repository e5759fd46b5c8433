/* csv_reply.h: `?format=csv` on the analysis endpoints. The handlers build
 * their JSON answer as always; when the request asked for CSV, the 200
 * answer is flattened (csv_writer.h) with the endpoint's table
 * (csv_tables.h) and sent as text/csv with a Content-Disposition file
 * name. Errors stay JSON. */
#ifndef ARIADNE_CSV_REPLY_H
#define ARIADNE_CSV_REPLY_H

#include "server.h"

/* Before the handler runs: checks format (json or csv) and, for csv, table
 * (one of the endpoint's tables). 0 to go on; -1 when it answered 400.
 * Routes without tables are left alone unless they are asked for csv. */
int ari_csv_admit(ari_request *r);
/* 1 when a 200 JSON answer of this request is to be sent as CSV. */
int ari_csv_wanted(ari_request *r);
/* Sends json_text (the handler's answer) as CSV. */
enum MHD_Result ari_csv_reply(ari_request *r, const char *json_text);

#endif

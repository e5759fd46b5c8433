/* chrome_trace_hermes.h: recognising a Hermes profile in a Chrome trace by
 * the args of its first event, as speedscope does; the caller then asks
 * analysis/trace_stacks.h for frames named by the event name alone
 * (name_only). Kept out of the analysis, which takes no JSON. */
#ifndef ARIADNE_CHROME_TRACE_HERMES_H
#define ARIADNE_CHROME_TRACE_HERMES_H

/* 1 if an event's args (compact JSON text, NULL when absent) are an object
 * carrying every field of a Hermes profile event (line, column, name,
 * category, url, params, allocatedCategory, allocatedName); else 0, also
 * for text that is not JSON. */
int ari_trace_args_are_hermes(const char *args);

#endif

/* hwloc_xml.h: hardware topologies as a flat tree of components, read
 * from hwloc XML (`lstopo --of xml`, 2.x or 1.x) by our own bounded expat
 * reader, never by libhwloc (whose XML import crashes on malformed files),
 * or discovered on this machine by libhwloc (I/O devices included). The
 * reader gives the components libhwloc 2.9's import would give.
 *
 * Components come parents first. Each has an hwloc kind (Machine, Package,
 * NUMANode, L3Cache, ..., Core, PU, Bridge, PCIDev) or "GPU" for the CUDA,
 * NVML, OpenCL or ROCm OS devices, and a key naming the movement endpoint
 * it stands for: "host" for host memory (the NUMA node when there is only
 * one, else the machine), "gpuN" for GPU N, "numaN" for other NUMA nodes.
 */
#ifndef ARIADNE_HWLOC_XML_H
#define ARIADNE_HWLOC_XML_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct ari_component {
    int parent;              /* index, -1 for the root */
    char kind[24];
    char name[128];
    int64_t os_index;        /* -1 when unknown */
    int64_t logical_index;
    char key[24];
    char *attrs_json;        /* a JSON object text, malloc'd */
} ari_component;

typedef struct ari_topology {
    ari_component *comps;
    size_t n, cap;
} ari_topology;

/* Non-zero if a file head looks like hwloc XML. */
int ari_hwloc_probe(const char *head, size_t n);
int ari_topology_from_xml(const char *path, const char *name, ari_topology *t, ari_error *err);
/* A trailing NUL in xml[0..len) is allowed. Malformed or oversized input
 * fails with invalid_input (or too_large) naming `name` and the line. */
int ari_topology_from_xml_buffer(const char *xml, size_t len, const char *name, ari_topology *t,
                                 ari_error *err);
/* This machine's topology, with PCI and OS devices. */
int ari_topology_this_machine(ari_topology *t, ari_error *err);
/* Appends a component; returns its index or -1 (out of memory). */
int ari_topology_add(ari_topology *t, int parent, const char *kind, const char *name,
                     int64_t os_index, const char *key, const char *attrs_json);
/* Index of the component with this key, or -1. */
int ari_topology_find_key(const ari_topology *t, const char *key);
void ari_topology_free(ari_topology *t);

#endif

/* hwloc_xml.c: topologies from hwloc XML or from this machine (see
 * hwloc_xml.h): load with libhwloc, then walk the object tree (normal,
 * memory and I/O children) into ari_topology components. */
#include "ingest/hwloc_xml.h"

#include <hwloc.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ari_topology_add(ari_topology *t, int parent, const char *kind, const char *name, int64_t os_index,
                     const char *key, const char *attrs_json)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        ari_component *g = realloc(t->comps, cap * sizeof *g);
        if (!g)
            return -1;
        t->comps = g;
        t->cap = cap;
    }
    ari_component *c = &t->comps[t->n];
    memset(c, 0, sizeof *c);
    c->parent = parent;
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    snprintf(c->name, sizeof c->name, "%s", name ? name : "");
    c->os_index = os_index;
    c->logical_index = -1;
    snprintf(c->key, sizeof c->key, "%s", key ? key : "");
    c->attrs_json = strdup(attrs_json ? attrs_json : "{}");
    if (!c->attrs_json)
        return -1;
    return (int)t->n++;
}

int ari_topology_find_key(const ari_topology *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->comps[i].key, key) == 0)
            return (int)i;
    return -1;
}

void ari_topology_free(ari_topology *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->comps[i].attrs_json);
    free(t->comps);
    memset(t, 0, sizeof *t);
}

/* ---- walking hwloc's tree ----------------------------------------------------- */

static int is_gpu_osdev(hwloc_obj_t o)
{
    if (o->type != HWLOC_OBJ_OS_DEVICE || !o->name)
        return 0;
    if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU && o->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC)
        return 0;
    return strncmp(o->name, "cuda", 4) == 0 || strncmp(o->name, "nvml", 4) == 0 ||
           strncmp(o->name, "opencl", 6) == 0 || strncmp(o->name, "rsmi", 4) == 0;
}

static void kind_of(hwloc_obj_t o, char *out, size_t size)
{
    if (is_gpu_osdev(o))
        snprintf(out, size, "GPU");
    else
        snprintf(out, size, "%s", hwloc_obj_type_string(o->type));
}

static char *attrs_of(hwloc_obj_t o)
{
    json_t *a = json_object();
    if (hwloc_obj_type_is_cache(o->type))
        json_object_set_new(a, "cache_size", json_integer((json_int_t)o->attr->cache.size));
    if (o->type == HWLOC_OBJ_NUMANODE)
        json_object_set_new(a, "local_memory", json_integer((json_int_t)o->attr->numanode.local_memory));
    if (o->type == HWLOC_OBJ_PCI_DEVICE) {
        char bus[32];
        snprintf(bus, sizeof bus, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                 o->attr->pcidev.dev, o->attr->pcidev.func);
        json_object_set_new(a, "pci_busid", json_string(bus));
        json_object_set_new(a, "link_speed", json_real(o->attr->pcidev.linkspeed));
        json_object_set_new(a, "class_id", json_integer(o->attr->pcidev.class_id));
    }
    for (unsigned i = 0; i < o->infos_count; i++)
        if (o->infos[i].name && o->infos[i].value)
            json_object_set_new(a, o->infos[i].name, json_string(o->infos[i].value));
    if (o->subtype)
        json_object_set_new(a, "subtype", json_string(o->subtype));
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return text;
}

typedef struct walk {
    ari_topology *t;
    int nnuma;
    int has_cuda;
    int failed;
} walk;

static void key_of(const walk *w, hwloc_obj_t o, char *key, size_t size)
{
    key[0] = '\0';
    if (o->type == HWLOC_OBJ_NUMANODE)
        snprintf(key, size, w->nnuma == 1 ? "host" : "numa%u", o->os_index);
    else if (o->type == HWLOC_OBJ_MACHINE && w->nnuma != 1)
        snprintf(key, size, "host");
    else if (is_gpu_osdev(o)) {
        int n = -1;
        if (sscanf(o->name, "cuda%d", &n) == 1 || (!w->has_cuda && sscanf(o->name, "nvml%d", &n) == 1))
            snprintf(key, size, "gpu%d", n);
    }
}

static void walk_obj(walk *w, hwloc_obj_t o, int parent)
{
    if (w->failed || o->type == HWLOC_OBJ_MISC)
        return;
    char kind[24], key[24], name[128];
    kind_of(o, kind, sizeof kind);
    key_of(w, o, key, sizeof key);
    char type[64];
    hwloc_obj_type_snprintf(type, sizeof type, o, 0);
    if (o->name)
        snprintf(name, sizeof name, "%s", o->name);
    else if (o->type == HWLOC_OBJ_MACHINE || o->type == HWLOC_OBJ_BRIDGE || o->type == HWLOC_OBJ_PCI_DEVICE)
        snprintf(name, sizeof name, "%s", type);
    else
        snprintf(name, sizeof name, "%s #%u", type, o->logical_index);
    char *attrs = attrs_of(o);
    int64_t os = o->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (int64_t)o->os_index;
    int me = attrs ? ari_topology_add(w->t, parent, kind, name, os, key, attrs) : -1;
    free(attrs);
    if (me < 0) {
        w->failed = 1;
        return;
    }
    w->t->comps[me].logical_index = o->logical_index;
    for (hwloc_obj_t c = o->memory_first_child; c; c = c->next_sibling)
        walk_obj(w, c, me);
    for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling)
        walk_obj(w, c, me);
    for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
        walk_obj(w, c, me);
}

static int from_loaded(hwloc_topology_t topo, ari_topology *t, ari_error *err)
{
    walk w = {t, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), 0, 0};
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o)) != NULL;)
        if (is_gpu_osdev(o) && strncmp(o->name, "cuda", 4) == 0)
            w.has_cuda = 1;
    walk_obj(&w, hwloc_get_root_obj(topo), -1);
    if (w.failed) {
        ari_topology_free(t);
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    }
    return 0;
}

static hwloc_topology_t new_topology(ari_error *err)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0) {
        ari_error_set(err, ARI_E_NOMEM, "hwloc: cannot create a topology");
        return NULL;
    }
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    return topo;
}

int ari_topology_from_xml_buffer(const char *xml, size_t len, const char *name, ari_topology *t, ari_error *err)
{
    memset(t, 0, sizeof *t);
    hwloc_topology_t topo = new_topology(err);
    if (!topo)
        return -1;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    int rc;
    if (hwloc_topology_set_xmlbuffer(topo, xml, (int)len) < 0 || hwloc_topology_load(topo) < 0)
        rc = ari_error_set(err, ARI_E_INVALID_INPUT, "%s: not a topology hwloc can read (lstopo --of xml)", name);
    else
        rc = from_loaded(topo, t, err);
    hwloc_topology_destroy(topo);
    return rc;
}

int ari_topology_from_xml(const char *path, const char *name, ari_topology *t, ari_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ari_error_set(err, ARI_E_IO, "%s: cannot open", name);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            if (cap > ((size_t)256 << 20)) {
                free(buf);
                fclose(f);
                return ari_error_set(err, ARI_E_TOO_LARGE, "%s: topology XML larger than 256 MiB", name);
            }
            cap = cap ? cap * 2 : 1 << 17;
            char *g = realloc(buf, cap + 1);
            if (!g) {
                free(buf);
                fclose(f);
                return ari_error_set(err, ARI_E_NOMEM, "out of memory");
            }
            buf = g;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    int rc = ari_topology_from_xml_buffer(buf, len + 1, name, t, err);
    free(buf);
    return rc;
}

int ari_topology_this_machine(ari_topology *t, ari_error *err)
{
    memset(t, 0, sizeof *t);
    hwloc_topology_t topo = new_topology(err);
    if (!topo)
        return -1;
    /* PCI devices come from Linux's sysfs; the libpciaccess-based "pci"
     * plugin finds the same ones but leaks on every load, and the server
     * loads the topology per request. */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    int rc = hwloc_topology_load(topo) < 0 ? ari_error_set(err, ARI_E_IO, "hwloc: cannot load this machine's topology")
                                           : from_loaded(topo, t, err);
    hwloc_topology_destroy(topo);
    return rc;
}

int ari_hwloc_probe(const char *head, size_t n)
{
    return memmem(head, n, "<topology", 9) != NULL && memmem(head, n, "<object", 7) != NULL;
}

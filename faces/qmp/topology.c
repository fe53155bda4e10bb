/*
 * Logical topologies over a communicator's nodes, the allocated machine
 * (-qmp-geom, -qmp-alloc-map), and the lattice layout (QMP_layout_grid).
 * Node numbers and coordinates follow QMP: lexicographic, the dimension
 * map[0] varying fastest (the identity without a map), periodic.
 */
#include "qmp_face.h"

#include <stdlib.h>
#include <string.h>

void qmp_topo_coords(const struct qmp_topo *t, int node, int *coords)
{
    for (int i = 0; i < t->ndim; i++) {
        int d = t->map[i];
        coords[d] = node % t->dims[d];
        node /= t->dims[d];
    }
}

int qmp_topo_node(const struct qmp_topo *t, const int *coords)
{
    int node = 0;
    for (int i = t->ndim - 1; i >= 0; i--) {
        int d = t->map[i];
        int c = coords[d] % t->dims[d];
        node = node * t->dims[d] + (c < 0 ? c + t->dims[d] : c);
    }
    return node;
}

/* Whether map is a permutation of 0..n-1. */
static int is_permutation(const int *map, int n)
{
    int seen[QMP_DIMS_MAX] = {0};
    for (int i = 0; i < n; i++) {
        if (map[i] < 0 || map[i] >= n || seen[map[i]])
            return 0;
        seen[map[i]] = 1;
    }
    return 1;
}

QMP_status_t qmp_topo_set(struct qmp_node *n, QMP_comm_t comm, const char *call, const int *dims, int ndim,
                          const int *map, int nmap)
{
    if (comm->declared)
        return qmp_fail(n, QMP_TOPOLOGY_EXISTS, "%s: a logical topology is declared already", call);
    if (!dims || ndim < 1 || ndim > QMP_DIMS_MAX)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: %d dimensions (1..%d, and dims not NULL)", call, ndim,
                        QMP_DIMS_MAX);
    long long volume = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 1)
            return qmp_fail(n, QMP_INVALID_ARG, "%s: dimension %d has length %d", call, i, dims[i]);
        volume *= dims[i];
        if (volume > comm->size)
            break;
    }
    if (volume != comm->size)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: the dimensions hold %lld nodes, the communicator has %d", call,
                        volume, comm->size);
    if (map && (nmap != ndim || !is_permutation(map, ndim)))
        return qmp_fail(n, QMP_INVALID_ARG, "%s: the map is not a permutation of the %d dimensions", call, ndim);
    struct qmp_topo *t = &comm->topo;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        t->dims[i] = dims[i];
        t->map[i] = map ? map[i] : i;
    }
    qmp_topo_coords(t, comm->rank, t->coords);
    int c[QMP_DIMS_MAX];
    for (int d = 0; d < ndim; d++) {
        memcpy(c, t->coords, sizeof c);
        c[d] = t->coords[d] - 1;
        t->neigh[0][d] = qmp_topo_node(t, c);
        c[d] = t->coords[d] + 1;
        t->neigh[1][d] = qmp_topo_node(t, c);
    }
    comm->declared = 1;
    return QMP_SUCCESS;
}

QMP_status_t QMP_comm_declare_logical_topology_map(QMP_comm_t comm, const int dims[], int ndim, const int map[],
                                                   int mapdim)
{
    const char *call = "QMP_declare_logical_topology";
    struct qmp_node *n = qmp_node_of(call);
    if (!n)
        return QMP_NOT_INITED;
    QMP_comm_t c = qmp_comm(n, comm, call);
    return c ? qmp_topo_set(n, c, call, dims, ndim, mapdim > 0 ? map : NULL, mapdim) : n->last;
}

QMP_status_t QMP_comm_declare_logical_topology(QMP_comm_t comm, const int dims[], int ndim)
{
    struct qmp_node *n = qmp_node_of("QMP_declare_logical_topology");
    if (!n)
        return QMP_NOT_INITED;
    return QMP_comm_declare_logical_topology_map(comm, dims, ndim, n->lmaplen > 0 ? n->lmap : NULL, n->lmaplen);
}

QMP_status_t QMP_declare_logical_topology_map(const int dims[], int ndim, const int map[], int mapdim)
{
    return QMP_comm_declare_logical_topology_map(qmp_default(), dims, ndim, map, mapdim);
}

QMP_status_t QMP_declare_logical_topology(const int dims[], int ndim)
{
    return QMP_comm_declare_logical_topology(qmp_default(), dims, ndim);
}

/* comm with a declared topology, or NULL. */
static QMP_comm_t declared(QMP_comm_t comm, const char *call, int need)
{
    struct qmp_node *n = qmp_node_of(call);
    QMP_comm_t c = n ? qmp_comm(n, comm, call) : NULL;
    if (c && !c->declared) {
        if (need)
            qmp_fail(n, QMP_INVALID_TOPOLOGY, "%s: no logical topology is declared", call);
        return NULL;
    }
    return c;
}

QMP_bool_t QMP_comm_logical_topology_is_declared(QMP_comm_t comm)
{
    return declared(comm, "QMP_logical_topology_is_declared", 0) ? QMP_TRUE : QMP_FALSE;
}

QMP_bool_t QMP_logical_topology_is_declared(void)
{
    return QMP_comm_logical_topology_is_declared(qmp_default());
}

int QMP_comm_get_logical_number_of_dimensions(QMP_comm_t comm)
{
    QMP_comm_t c = declared(comm, "QMP_get_logical_number_of_dimensions", 0);
    return c ? c->topo.ndim : 0;
}

int QMP_get_logical_number_of_dimensions(void)
{
    return QMP_comm_get_logical_number_of_dimensions(qmp_default());
}

const int *QMP_comm_get_logical_dimensions(QMP_comm_t comm)
{
    QMP_comm_t c = declared(comm, "QMP_get_logical_dimensions", 0);
    return c ? c->topo.dims : NULL;
}

const int *QMP_get_logical_dimensions(void)
{
    return QMP_comm_get_logical_dimensions(qmp_default());
}

const int *QMP_comm_get_logical_coordinates(QMP_comm_t comm)
{
    QMP_comm_t c = declared(comm, "QMP_get_logical_coordinates", 1);
    return c ? c->topo.coords : NULL;
}

const int *QMP_get_logical_coordinates(void)
{
    return QMP_comm_get_logical_coordinates(qmp_default());
}

void QMP_comm_get_logical_coordinates_from2(QMP_comm_t comm, int coords[], int node)
{
    const char *call = "QMP_get_logical_coordinates_from";
    QMP_comm_t c = declared(comm, call, 1);
    if (!c || !coords)
        return;
    if (node < 0 || node >= c->size) {
        qmp_fail(qmp_self(), QMP_NODE_OUTRANGE, "%s: node %d outside 0..%d", call, node, c->size - 1);
        memset(coords, 0, (size_t)c->topo.ndim * sizeof *coords);
        return;
    }
    qmp_topo_coords(&c->topo, node, coords);
}

int *QMP_comm_get_logical_coordinates_from(QMP_comm_t comm, int node)
{
    QMP_comm_t c = declared(comm, "QMP_get_logical_coordinates_from", 1);
    int *coords = c ? malloc((size_t)c->topo.ndim * sizeof *coords) : NULL;
    if (coords)
        QMP_comm_get_logical_coordinates_from2(c, coords, node);
    return coords;
}

int *QMP_get_logical_coordinates_from(int node)
{
    return QMP_comm_get_logical_coordinates_from(qmp_default(), node);
}

void QMP_get_logical_coordinates_from2(int coords[], int node)
{
    QMP_comm_get_logical_coordinates_from2(qmp_default(), coords, node);
}

int QMP_comm_get_node_number_from(QMP_comm_t comm, const int coordinates[])
{
    QMP_comm_t c = declared(comm, "QMP_get_node_number_from", 1);
    if (!c)
        return -1;
    if (!coordinates) {
        qmp_fail(qmp_self(), QMP_INVALID_ARG, "QMP_get_node_number_from: coordinates is NULL");
        return -1;
    }
    return qmp_topo_node(&c->topo, coordinates);
}

int QMP_get_node_number_from(const int coordinates[])
{
    return QMP_comm_get_node_number_from(qmp_default(), coordinates);
}

/* ---- the allocated machine and the job ---- */

int QMP_get_allocated_number_of_dimensions(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_allocated_number_of_dimensions");
    return n ? QMP_comm_get_logical_number_of_dimensions(n->allocated) : 0;
}

const int *QMP_get_allocated_dimensions(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_allocated_dimensions");
    return n ? QMP_comm_get_logical_dimensions(n->allocated) : NULL;
}

const int *QMP_get_allocated_coordinates(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_allocated_coordinates");
    return n && n->allocated->declared ? n->allocated->topo.coords : NULL;
}

int QMP_get_number_of_job_geometry_dimensions(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_number_of_job_geometry_dimensions");
    return n ? QMP_comm_get_logical_number_of_dimensions(n->job) : 0;
}

const int *QMP_get_job_geometry(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_job_geometry");
    return n ? QMP_comm_get_logical_dimensions(n->job) : NULL;
}

/* ---- the lattice layout ---- */

/* Splits the nodes over the lattice dims (no topology declared): the
 * node count's prime factors, largest first, each dividing the lattice
 * dimension with the most sites left that it divides (among equals, the
 * first one divided before, else the last), as QMP chooses: nodes[i] per
 * dimension. 0 when the factors run out. */
static int split_nodes(const int *dims, int ndim, int count, int *nodes)
{
    static const int primes[] = {53, 47, 43, 41, 37, 31, 29, 23, 19, 17, 13, 11, 7, 5, 3, 2};
    int left[QMP_DIMS_MAX];
    for (int i = 0; i < ndim; i++) {
        left[i] = dims[i];
        nodes[i] = 1;
    }
    size_t k = 0;
    while (count > 1) {
        while (k + 1 < sizeof primes / sizeof primes[0] && count % primes[k] != 0)
            k++;
        int p = primes[k], best = -1;
        if (count % p != 0)
            return 0;
        for (int i = 0; i < ndim; i++) {
            if (left[i] % p != 0)
                continue;
            if (best < 0 || left[i] > left[best] || (left[i] == left[best] && nodes[best] == 1))
                best = i;
        }
        if (best < 0)
            return 0;
        count /= p;
        left[best] /= p;
        nodes[best] *= p;
    }
    return 1;
}

QMP_status_t QMP_layout_grid(const int dimensions[], int ndims)
{
    const char *call = "QMP_layout_grid";
    struct qmp_node *n = qmp_node_of(call);
    if (!n)
        return QMP_NOT_INITED;
    if (!dimensions || ndims < 1 || ndims > QMP_DIMS_MAX)
        return qmp_fail(n, QMP_INVALID_ARG, "%s: %d dimensions (1..%d, and dimensions not NULL)", call, ndims,
                        QMP_DIMS_MAX);
    for (int i = 0; i < ndims; i++)
        if (dimensions[i] < 1)
            return qmp_fail(n, QMP_INVALID_ARG, "%s: dimension %d has length %d", call, i, dimensions[i]);
    if (n->allocated->declared && !n->deflt->declared) {
        QMP_status_t st = QMP_declare_logical_topology(n->allocated->topo.dims, n->allocated->topo.ndim);
        if (st != QMP_SUCCESS)
            return st;
    }
    int nodes[QMP_DIMS_MAX];
    if (!n->deflt->declared) {
        if (!split_nodes(dimensions, ndims, n->deflt->size, nodes))
            return qmp_fail(n, QMP_ERROR, "%s: the lattice's prime factors cannot take %d nodes", call,
                            n->deflt->size);
        QMP_status_t st = QMP_declare_logical_topology(nodes, ndims);
        if (st != QMP_SUCCESS)
            return st;
    } else {
        const struct qmp_topo *t = &n->deflt->topo;
        if (ndims < t->ndim)
            return qmp_fail(n, QMP_ERROR, "%s: %d lattice dimensions, the logical topology has %d", call, ndims,
                            t->ndim);
        for (int i = 0; i < ndims; i++)
            nodes[i] = i < t->ndim ? t->dims[i] : 1;
    }
    int sites = 1;
    for (int i = 0; i < ndims; i++) {
        if (dimensions[i] % nodes[i] != 0)
            return qmp_fail(n, QMP_ERROR, "%s: lattice dimension %d (%d) is not a multiple of the %d nodes there",
                            call, i, dimensions[i], nodes[i]);
        n->subgrid[i] = dimensions[i] / nodes[i];
        n->layout_dims[i] = dimensions[i];
        sites *= n->subgrid[i];
    }
    n->layout_ndim = ndims;
    n->subgrid_sites = sites;
    return QMP_SUCCESS;
}

const int *QMP_get_subgrid_dimensions(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_subgrid_dimensions");
    return n && n->layout_ndim ? n->subgrid : NULL;
}

int QMP_get_number_of_subgrid_sites(void)
{
    struct qmp_node *n = qmp_node_of("QMP_get_number_of_subgrid_sites");
    return n && n->layout_ndim ? n->subgrid_sites : 0;
}

/*
 * Initialisation and the machine: QMP_is_initialized before and after,
 * the -qmp-* arguments recognised and removed from argv (the others kept in
 * order), the allocated machine that -qmp-geom declares, the version, the
 * node numbers, and stdin, which node 0 reads (the others find theirs
 * empty).
 *
 * Arguments (from the file "args"): alpha -qmp-geom G0 G1 G2 G3 beta
 * -qmp-alloc-map 0 1 2 3 -qmp-logic-map 0 1 2 3 gamma, G the allocated
 * dimensions (their product the number of nodes).
 */
#include "qmptest.h"

/* The expected arguments once QMP has removed its own. */
static int kept_args(int argc, char **argv)
{
    static const char *const want[] = {"alpha", "beta", "gamma"};
    int bad = check(argc == 4, "argc %d after QMP_init_msg_passing, want 4", argc);
    for (int i = 1; i < argc && i < 4; i++)
        bad += check(strcmp(argv[i], want[i - 1]) == 0, "argv[%d] = %s, want %s", i, argv[i], want[i - 1]);
    bad += check(argv[argc] == NULL, "argv[argc] is not NULL");
    return bad;
}

/* The allocated machine of -qmp-geom: lexicographic, dimension 0 fastest. */
static int allocated_machine(void)
{
    int bad = check(QMP_get_msg_passing_type() == QMP_GRID, "machine type %d, want QMP_GRID", QMP_get_msg_passing_type());
    int nd = QMP_get_allocated_number_of_dimensions();
    if (check(nd == 4, "allocated dimensions %d, want 4", nd))
        return bad + 1;
    const int *ad = QMP_get_allocated_dimensions(), *ac = QMP_get_allocated_coordinates();
    int rest = QMP_get_node_number(), product = 1;
    for (int i = 0; i < nd; i++) {
        bad += check(ac[i] == rest % ad[i], "allocated coordinate %d is %d, want %d", i, ac[i], rest % ad[i]);
        rest /= ad[i];
        product *= ad[i];
    }
    bad += check(product == QMP_get_number_of_nodes(), "allocated machine of %d nodes in a job of %d", product,
                 QMP_get_number_of_nodes());
    if (QMP_get_node_number() == 0)
        say("allocated %d %d %d %d", ad[0], ad[1], ad[2], ad[3]);
    say("allocated coordinates %d %d %d %d", ac[0], ac[1], ac[2], ac[3]);
    return bad;
}

/* The other nodes find their stdin empty, whichever way they read it,
 * and before node 0 reads: they take nothing of its input. */
static int others_read_nothing(void)
{
    int bad = 0;
    if (!QMP_is_primary_node()) {
        char word[64];
        bad += check(scanf("%63s", word) == EOF, "scanf read from stdin on node %d", QMP_get_node_number());
        bad += check(getchar() == EOF, "getchar read from stdin on node %d", QMP_get_node_number());
        bad += check(!fgets(word, sizeof word, stdin), "fgets read from stdin on node %d", QMP_get_node_number());
    }
    bad += check(QMP_barrier() == QMP_SUCCESS, "QMP_barrier failed");
    return bad;
}

/* Node 0 reads one line of stdin and broadcasts it. */
static int read_stdin(void)
{
    char line[64] = "";
    if (QMP_is_primary_node() && !fgets(line, sizeof line, stdin))
        strcpy(line, "(nothing on stdin)");
    line[strcspn(line, "\n")] = 0;
    int bad = check(QMP_broadcast(line, sizeof line) == QMP_SUCCESS, "QMP_broadcast failed");
    say("stdin: %s", line);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    int before = QMP_is_initialized();
    start(&argc, &argv);
    bad += check(!before, "QMP_is_initialized is true before QMP_init_msg_passing");
    bad += check(QMP_is_initialized(), "QMP_is_initialized is false after QMP_init_msg_passing");
    bad += kept_args(argc, argv);

    int node = QMP_get_node_number(), nodes = QMP_get_number_of_nodes();
    bad += check(node >= 0 && node < nodes, "node %d of %d", node, nodes);
    bad += check(QMP_is_primary_node() == (node == 0), "QMP_is_primary_node %d on node %d", QMP_is_primary_node(), node);
    bad += check(QMP_get_number_of_jobs() == 1 && QMP_get_job_number() == 0, "jobs %d, job %d",
                 QMP_get_number_of_jobs(), QMP_get_job_number());
    int v = QMP_version_int();
    bad += check(v >= 2005000 && v < 2006000, "QMP_version_int %d is not 2.5.x's", v);
    bad += check(strncmp(QMP_version_str(), "2.5.", 4) == 0, "QMP_version_str %s", QMP_version_str());
    double t0 = QMP_time(), t1 = QMP_time();
    bad += check(t1 >= t0 && t0 >= 0, "QMP_time %g then %g", t0, t1);
    if (node == 0)
        say("nodes %d", nodes);
    say("argv %s %s %s", argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-", argc > 3 ? argv[3] : "-");

    bad += allocated_machine();
    bad += others_read_nothing();
    bad += read_stdin();
    return finish(bad);
}

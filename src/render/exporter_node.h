/* exporter_node.h - the machine's families of the exporter's /metrics page
 * (feedscope_node_*: docs/exporter.md, "The machine"), from the figures of
 * analysis/load/nodestat.h. A pure function of what it is given. Every family's
 * HELP and TYPE is written even before it has a sample; a figure the
 * machine does not report has no sample, never 0. */
#ifndef FS_EXPORTER_NODE_H
#define FS_EXPORTER_NODE_H

#include "analysis/load/nodestat.h"
#include "render/openmetrics.h"

/* Write the feedscope_node_* families of s into o (fs_om_init'ed). */
void fs_exporter_node_page(struct fs_om *o, const struct fs_nodestat *s);

#endif

/* The exposition text (render/openmetrics.c) and the exporter's page
 * (render/exporter_page.c): escapes, names, HELP/TYPE/UNIT in both
 * formats, values, the size bound; every line of a page is one the format
 * allows, and every sample belongs to the family declared above it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/exporter_node.h"
#include "render/exporter_page.h"
#include "render/openmetrics.h"

static void test_escape(void)
{
	char out[256];
	CHECK_STR(fs_om_escape(out, sizeof out, "plain"), "plain");
	CHECK_STR(fs_om_escape(out, sizeof out, "a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
	CHECK_STR(fs_om_escape(out, sizeof out, "µs→"), "µs→");
	CHECK_STR(fs_om_escape(out, sizeof out, "x\xff" "y"), "x\xef\xbf\xbdy"); /* invalid UTF-8: U+FFFD */
	CHECK_STR(fs_om_escape(out, sizeof out, "\xc3"), "\xef\xbf\xbd");         /* cut sequence */
	CHECK_STR(fs_om_escape(out, sizeof out, NULL), "");
	/* cut before an escape that does not fit, never inside it */
	CHECK_STR(fs_om_escape(out, 4, "ab\"c"), "ab");
	CHECK_STR(fs_om_escape(out, 3, "aµ"), "a");
}

static void test_names(void)
{
	CHECK(fs_om_name_ok("feedscope_steps"));
	CHECK(fs_om_name_ok("a:b_c9"));
	CHECK(!fs_om_name_ok("9a"));
	CHECK(!fs_om_name_ok("a-b"));
	CHECK(!fs_om_name_ok(""));
	CHECK(!fs_om_name_ok("__x"));
	CHECK(fs_om_label_name_ok("job"));
	CHECK(!fs_om_label_name_ok("a:b"));
	CHECK(!fs_om_label_name_ok("__name__"));
}

static char *page(bool om, size_t max, void (*fill)(struct fs_om *))
{
	struct fs_om o;
	size_t len;
	fs_om_init(&o, om, max);
	fill(&o);
	char *b = fs_om_finish(&o, &len);
	CHECK(b && strlen(b) == len);
	return b;
}

static void fill_small(struct fs_om *o)
{
	fs_om_family(o, "feedscope_input_wait_seconds", FS_OM_COUNTER, "seconds", "Waited\\for a\nbatch.");
	fs_om_sample(o, (struct fs_om_label[]){{"job", "j\"1"}, {"rank", ""}, {"loader", "a\nb"}}, 3, 0.1);
	fs_om_family(o, "feedscope_verdict", FS_OM_INFO, NULL, "The verdict.");
	fs_om_sample(o, (struct fs_om_label[]){{"primary", "storage_latency"}}, 1, 1);
	fs_om_family(o, "feedscope_x", FS_OM_GAUGE, NULL, "Gauge.");
	fs_om_sample(o, NULL, 0, NAN);
	fs_om_sample(o, NULL, 0, INFINITY);
	fs_om_sample(o, NULL, 0, -INFINITY);
	fs_om_sample(o, NULL, 0, 12345678901.0);
	fs_om_sample(o, NULL, 0, -0.25);
}

static void test_text(void)
{
	char *b = page(false, 1 << 20, fill_small);
	CHECK_STR(b, "# HELP feedscope_input_wait_seconds_total Waited\\\\for a\\nbatch.\n"
		     "# TYPE feedscope_input_wait_seconds_total counter\n"
		     "feedscope_input_wait_seconds_total{job=\"j\\\"1\",loader=\"a\\nb\"} 0.1\n"
		     "# HELP feedscope_verdict_info The verdict.\n"
		     "# TYPE feedscope_verdict_info gauge\n"
		     "feedscope_verdict_info{primary=\"storage_latency\"} 1\n"
		     "# HELP feedscope_x Gauge.\n"
		     "# TYPE feedscope_x gauge\n"
		     "feedscope_x NaN\nfeedscope_x +Inf\nfeedscope_x -Inf\nfeedscope_x 12345678901\nfeedscope_x -0.25\n");
	free(b);
	b = page(true, 1 << 20, fill_small);
	CHECK_STR(b, "# HELP feedscope_input_wait_seconds Waited\\\\for a\\nbatch.\n"
		     "# TYPE feedscope_input_wait_seconds counter\n"
		     "# UNIT feedscope_input_wait_seconds seconds\n"
		     "feedscope_input_wait_seconds_total{job=\"j\\\"1\",loader=\"a\\nb\"} 0.1\n"
		     "# HELP feedscope_verdict The verdict.\n"
		     "# TYPE feedscope_verdict info\n"
		     "feedscope_verdict_info{primary=\"storage_latency\"} 1\n"
		     "# HELP feedscope_x Gauge.\n"
		     "# TYPE feedscope_x gauge\n"
		     "feedscope_x NaN\nfeedscope_x +Inf\nfeedscope_x -Inf\nfeedscope_x 12345678901\nfeedscope_x -0.25\n"
		     "# EOF\n");
	free(b);
	/* the bound: whole lines only, and OpenMetrics still ends with # EOF */
	b = page(true, 150, fill_small);
	CHECK(strlen(b) <= 150 + 6);
	CHECK(strlen(b) >= 6 && !strcmp(b + strlen(b) - 6, "# EOF\n"));
	CHECK(!strstr(b, "feedscope_input_wait_seconds_total{")); /* the first sample line did not fit */
	free(b);
	b = page(false, 10, fill_small);
	CHECK_STR(b, "");
	free(b);
}

/* Is line a sample line the text format allows? Its name out. */
static bool sample_ok(const char *line, char *name, size_t cap)
{
	const char *p = line;
	size_t n = strcspn(p, "{ ");
	if (n == 0 || n >= cap)
		return false;
	memcpy(name, p, n);
	name[n] = 0;
	if (!fs_om_name_ok(name))
		return false;
	p += n;
	if (*p == '{') {
		p++;
		for (;;) {
			char lname[64];
			size_t k = strcspn(p, "=");
			if (k == 0 || k >= sizeof lname || p[k] != '=' || p[k + 1] != '"')
				return false;
			memcpy(lname, p, k);
			lname[k] = 0;
			if (!fs_om_label_name_ok(lname))
				return false;
			p += k + 2;
			while (*p && *p != '"') {
				if (*p == '\n')
					return false;
				if (*p == '\\' && !strchr("\\\"n", *++p))
					return false;
				p++;
			}
			if (*p++ != '"')
				return false;
			if (*p == ',')
				p++;
			else if (*p == '}')
				break;
			else
				return false;
		}
		p++;
	}
	if (*p++ != ' ')
		return false;
	if (!strcmp(p, "NaN") || !strcmp(p, "+Inf") || !strcmp(p, "-Inf"))
		return true;
	char *end;
	strtod(p, &end);
	return end != p && *end == 0;
}

/* Every line of page b is HELP, TYPE, UNIT, # EOF or a sample of the last
 * TYPE'd family; returns the number of samples and of families. */
static void check_page(char *b, bool om, int *samples, int *families)
{
	char family[160] = "", type[16] = "", name[160];
	*samples = *families = 0;
	for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# UNIT ", 7))
			continue;
		if (!strncmp(line, "# TYPE ", 7)) {
			CHECK(sscanf(line + 7, "%159s %15s", family, type) == 2);
			CHECK(fs_om_name_ok(family));
			CHECK(!strcmp(type, "counter") || !strcmp(type, "gauge") || (om && !strcmp(type, "info")));
			++*families;
			continue;
		}
		if (!strcmp(line, "# EOF")) {
			CHECK(om);
			continue;
		}
		bool ok = sample_ok(line, name, sizeof name);
		if (!ok)
			fprintf(stderr, "bad line: %s\n", line);
		CHECK(ok);
		char want[200];
		snprintf(want, sizeof want, "%s%s", family,
			 !om ? "" : !strcmp(type, "counter") ? "_total" : !strcmp(type, "info") ? "_info" : "");
		if (strcmp(name, want))
			fprintf(stderr, "sample %s under family %s\n", name, family);
		CHECK_STR(name, want);
		++*samples;
	}
}

static void test_page(void)
{
	static struct fs_tally_data d;
	memset(&d, 0, sizeof d);
	strcpy(d.mode, "run");
	strcpy(d.host, "node\"7\"");
	d.recorded_s = 12.5;
	d.ticks = 125;
	d.nloops = 2;
	d.loops[0] = (struct fs_tally_loop){.pid = 10, .rank = 0, .loader = "ImageFolder", .steps = 40, .wait_s = 1.5, .compute_s = 3};
	d.loops[1] = (struct fs_tally_loop){.pid = 11, .rank = -1, .loader = "we\\ird\nname", .steps = 2};
	d.have_proc = d.have_classes = d.have_gpu = true;
	d.thread_s[FS_TALLY_WORKER][FS_TALLY_BLOCKED_IO] = 0.75;
	d.io_s[FS_TALLY_FILE][0][FS_TALLY_READ] = 2.25;
	d.ngpus = 1;
	d.gpus[0] = (struct fs_tally_gpu){.gpu = 0, .name = "NVIDIA H200", .util_pct = 50, .mem_used_bytes = NAN,
					  .mem_total_bytes = NAN, .power_w = 300, .busy_s = 6};
	d.have_pss = true;
	d.pss[FS_TALLY_PART_MAIN] = 3e8;
	d.pss[FS_TALLY_PART_WORKERS] = 1.5e9;
	d.uss[FS_TALLY_PART_WORKERS] = 7.5e8;
	d.shm_used = 4096;
	d.shm_size = 67108864;
	d.cg_limit = d.cg_usage = NAN; /* unlimited, not read: no sample */
	d.cg_peak = 2e9;
	d.stalls = 2; /* the second stall on since t = 4.5 s */
	d.stalled = true;
	d.stall_start = 4.5;
	struct fs_exporter_verdict v = {.valid = true, .primary = "storage_latency", .basis = "steps + gpu",
					.confidence = 0.8, .input_bound = 0.3, .accelerator_idle = 0.35, .have_shares = true,
					.window_s = 12.5, .at_s = 12.5};
	v.share[FS_BUCKET_BUSY] = 0.65;
	v.share[FS_BUCKET_INPUT] = 0.35;
	struct fs_exporter_verdict none = {0};
	struct fs_exporter_job jobs[] = {{"train", true, &d, &v}, {"gone", false, &d, &none}};
	struct fs_exporter_counters c = {3, 1, 0, 7, 2};
	for (int om = 0; om < 2; om++) {
		struct fs_om o;
		size_t len;
		fs_om_init(&o, om, 1 << 20);
		fs_exporter_page(&o, jobs, 2, &c);
		char *b = fs_om_finish(&o, &len);
		CHECK(strstr(b, "feedscope_steps_total{job=\"train\",rank=\"0\",pid=\"10\",loader=\"ImageFolder\"} 40\n"));
		CHECK(strstr(b, "feedscope_steps_total{job=\"train\",pid=\"11\",loader=\"we\\\\ird\\nname\"} 2\n"));
		CHECK(strstr(b, "feedscope_input_wait_seconds_total{job=\"train\",rank=\"0\",pid=\"10\",loader=\"ImageFolder\"} 1.5\n"));
		CHECK(strstr(b, "feedscope_run_info{job=\"train\",mode=\"run\",hostname=\"node\\\"7\\\"\"} 1\n"));
		CHECK(strstr(b, "feedscope_loader_thread_seconds_total{job=\"train\",role=\"worker\",state=\"blocked_io\"} 0.75\n"));
		CHECK(strstr(b, "feedscope_io_call_seconds_total{job=\"train\",class=\"file\",thread=\"main\",call=\"read\"} 2.25\n"));
		CHECK(strstr(b, "feedscope_accelerator_utilization_ratio{job=\"train\",gpu=\"0\",device=\"nvidia0\",model_name=\"NVIDIA H200\"} 0.5\n"));
		CHECK(!strstr(b, "feedscope_accelerator_memory_used_bytes{")); /* unknown: no sample, not 0 */
		CHECK(strstr(b, "feedscope_verdict_info{job=\"train\",primary=\"storage_latency\",basis=\"steps + gpu\"} 1\n"));
		CHECK(strstr(b, "feedscope_accelerator_idle_ratio{job=\"train\"} 0.35\n"));
		CHECK(strstr(b, "feedscope_loop_time_ratio{job=\"train\",bucket=\"input_wait\"} 0.35\n"));
		CHECK(strstr(b, "feedscope_run_file_up{job=\"gone\"} 0\n"));
		CHECK(!strstr(b, "feedscope_steps_total{job=\"gone\""));
		CHECK(strstr(b, "feedscope_exporter_bad_requests_total 2\n"));
		CHECK(strstr(b, "feedscope_job_memory_pss_bytes{job=\"train\",role=\"workers\"} 1500000000\n"));
		CHECK(strstr(b, "feedscope_job_memory_pss_bytes{job=\"train\",role=\"others\"} 0\n"));
		CHECK(strstr(b, "feedscope_job_memory_uss_bytes{job=\"train\",role=\"workers\"} 750000000\n"));
		CHECK(strstr(b, "feedscope_dev_shm_size_bytes{job=\"train\"} 67108864\n"));
		CHECK(strstr(b, "feedscope_cgroup_memory_peak_bytes{job=\"train\"} 2000000000\n"));
		CHECK(!strstr(b, "feedscope_cgroup_memory_limit_bytes{")); /* unlimited: no sample */
		CHECK(!strstr(b, "feedscope_job_memory_pss_bytes{job=\"gone\""));
		CHECK(strstr(b, om ? "# UNIT feedscope_job_memory_swap_bytes bytes\n" : "# TYPE feedscope_job_memory_swap_bytes gauge\n"));
		CHECK(strstr(b, "feedscope_stalled{job=\"train\"} 1\n"));
		CHECK(strstr(b, "feedscope_stall_seconds{job=\"train\"} 8\n"));
		CHECK(strstr(b, "feedscope_stalls_total{job=\"train\"} 2\n"));
		int samples, families;
		check_page(b, om, &samples, &families);
		CHECK(samples > 40);
		CHECK_INT(families, 42);
		free(b);
	}
}

/* The machine's families (render/exporter_node.c): valid lines, counters
 * in base units, an unknown figure without a sample. */
static void test_node_page(void)
{
	static struct fs_nodestat s;
	fs_nodestat_init(&s);
	s.samples = 9;
	s.nsources = 2;
	snprintf(s.sources[0].name, sizeof s.sources[0].name, "disk");
	s.sources[0].up = true;
	snprintf(s.sources[1].name, sizeof s.sources[1].name, "psi");
	s.have_cpu = true;
	s.ncpu = 2;
	for (int m = 0; m < FS_NODE__MODES; m++)
		s.cpu_ratio[m] = 0;
	s.cpu_ratio[FS_NODE_USER] = 0.25, s.cpu_ratio[FS_NODE_IDLE] = 0.5, s.cpu_ratio[FS_NODE_IOWAIT] = 0.25;
	s.ncores = 2;
	s.core_busy[0] = 0.5, s.core_busy[1] = NAN;
	s.mem[FS_NODE_MEM_TOTAL] = 1024.0 * 1024 * 1024;
	s.ndisks = 1;
	s.disks[0] = (struct fs_nodestat_disk){.device = "nvme0n1", .reads = 3, .read_bytes = 12288, .read_ms = 1500,
					       .discard_bytes = NAN, .flushes = 4, .util_ratio = 0.5};
	s.nifaces = 1;
	s.ifaces[0] = (struct fs_nodestat_iface){.name = "eth0", .rx_bytes = 1e9, .speed_bytes_per_s = NAN};
	s.npsi = 1;
	s.psi[0] = (struct fs_nodestat_psi){.resource = "io", .some_us = 2500000, .full_us = NAN, .some_ratio = 0.1, .full_ratio = NAN};
	for (int om = 0; om < 2; om++) {
		struct fs_om o;
		size_t len;
		fs_om_init(&o, om, 1 << 20);
		fs_exporter_node_page(&o, &s);
		char *b = fs_om_finish(&o, &len);
		CHECK(strstr(b, "feedscope_node_samples_total 9\n"));
		CHECK(strstr(b, "feedscope_node_source_up{source=\"psi\"} 0\n"));
		CHECK(strstr(b, "feedscope_node_cpu_busy_ratio 0.25\n"));
		CHECK(strstr(b, "feedscope_node_cpu_core_busy_ratio{cpu=\"0\"} 0.5\n"));
		CHECK(!strstr(b, "feedscope_node_cpu_core_busy_ratio{cpu=\"1\"}")); /* offline: no sample */
		CHECK(strstr(b, "feedscope_node_memory_total_bytes 1073741824\n"));
		CHECK(!strstr(b, "\nfeedscope_node_memory_free_bytes ")); /* unknown: no sample, not 0 */
		CHECK(strstr(b, "feedscope_node_disk_read_bytes_total{device=\"nvme0n1\"} 12288\n"));
		CHECK(strstr(b, "feedscope_node_disk_read_time_seconds_total{device=\"nvme0n1\"} 1.5\n"));
		CHECK(!strstr(b, "feedscope_node_disk_discarded_bytes_total{"));
		CHECK(strstr(b, "feedscope_node_network_receive_bytes_total{device=\"eth0\"} 1000000000\n"));
		CHECK(!strstr(b, "feedscope_node_network_speed_bytes_per_second{"));
		CHECK(strstr(b, "feedscope_node_pressure_stalled_seconds_total{resource=\"io\",kind=\"some\"} 2.5\n"));
		CHECK(!strstr(b, "kind=\"full\""));
		CHECK(!strstr(b, "\nfeedscope_node_major_faults_total "));
		CHECK(strstr(b, om ? "# TYPE feedscope_node_disk_read_bytes counter\n# UNIT feedscope_node_disk_read_bytes bytes\n"
				   : "# TYPE feedscope_node_disk_read_bytes_total counter\n"));
		int samples, families;
		check_page(b, om, &samples, &families);
		CHECK(samples > 20);
		CHECK_INT(families, 47);
		free(b);
	}
}

int main(void)
{
	test_escape();
	test_names();
	test_text();
	test_page();
	test_node_page();
	return check_exit("test_openmetrics");
}

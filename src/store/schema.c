#include "store/schema.h"

#define FS_COL_DEF(tbl, name, type) {#name, #type},
#define FS_TABLE_COLS(id, name, cols, sampled) \
	static const struct fs_column cols_##name[] = {cols(FS_COL_DEF)};
FS_TABLES(FS_TABLE_COLS)
#undef FS_TABLE_COLS

#define FS_TABLE_DEF(id, sqlname, cols, smp) \
	[FS_T_##id] = {#sqlname, FS_##id##__N, cols_##sqlname, smp},
const struct fs_table fs_tables[FS_T__COUNT] = {FS_TABLES(FS_TABLE_DEF)};
#undef FS_TABLE_DEF
#undef FS_COL_DEF

#define FS_CHECK_WIDTH(id, name, cols, sampled) \
	_Static_assert(FS_##id##__N <= FS_MAX_COLS, "table " #name " is wider than FS_MAX_COLS");
FS_TABLES(FS_CHECK_WIDTH)

int fs_table_own_dt(enum fs_table_id t)
{
	switch (t) {
	case FS_T_CPU:
		return FS_CPU_dt_s;
	case FS_T_CPU_CORE:
		return FS_CPU_CORE_dt_s;
	case FS_T_PSI:
		return FS_PSI_dt_s;
	case FS_T_MEM:
		return FS_MEM_dt_s;
	case FS_T_DISK:
		return FS_DISK_dt_s;
	case FS_T_NET:
		return FS_NET_dt_s;
	case FS_T_TCP:
		return FS_TCP_dt_s;
	case FS_T_NFS:
		return FS_NFS_dt_s;
	default:
		return 0;
	}
}

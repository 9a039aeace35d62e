/* cf_pos_table.h: Lc0's fixed 64-wide positional table for PE_MAP networks
 * with 176 embedding inputs (112 planes + 64 positional channels). */
#ifndef CF_POS_TABLE_H
#define CF_POS_TABLE_H

#define CF_POS_TABLE_CHANNELS 64

/* Channel c of square s (both 0..63, a1 = 0). */
float cf_pos_table_at(int s, int c);

#endif /* CF_POS_TABLE_H */

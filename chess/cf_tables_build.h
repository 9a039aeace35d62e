/* cf_tables_build.h: private to chess/. The builders cf_chess_init() runs
 * once; nothing else may call them. */
#ifndef CF_TABLES_BUILD_H
#define CF_TABLES_BUILD_H

void cf_attacks_build(void);
void cf_zobrist_build(void);

#endif /* CF_TABLES_BUILD_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Linked as a static ELF with DWARF, with the __ksymtab and
 * __ksymtab_strings sections libabigail reads a kernel's exports from
 * (the pre-4.19 layout of struct kernel_symbol: absolute addresses).
 */
#include "syn.h"

struct syn_ksym {
	unsigned long value;
	const char *name;
	const char *namespace;
};

#define SYN_EXPORT(sym)							\
	static const char __kstrtab_##sym[]				\
	__attribute__((section("__ksymtab_strings"), used)) = #sym;	\
	static const struct syn_ksym __ksymtab_##sym			\
	__attribute__((section("__ksymtab"), used)) =			\
		{ (unsigned long)&sym, __kstrtab_##sym, 0 }

int syn_count(struct syn_zone *z)
{
	return z->count;
}
SYN_EXPORT(syn_count);

int syn_other_get(struct syn_other *o)
{
	return o->a;
}
SYN_EXPORT(syn_other_get);

void _start(void)
{
}

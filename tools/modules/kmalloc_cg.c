// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc_cg: allocate and free kmalloc() objects on behalf of the
 * process that writes to its parameters, so that a test running inside
 * a memory cgroup can see where accounted and unaccounted objects land
 * (kmalloc-cg-<n> or kmalloc-<n>) and what its cgroup is charged.
 *
 *   /sys/module/kmalloc_cg/parameters/size       object size (bytes)
 *   /sys/module/kmalloc_cg/parameters/accounted  write N: allocate N
 *                          objects with GFP_KERNEL_ACCOUNT; read: held
 *   /sys/module/kmalloc_cg/parameters/plain      same with GFP_KERNEL
 *   /sys/module/kmalloc_cg/parameters/reclaimable  same with
 *                          GFP_KERNEL_ACCOUNT | __GFP_RECLAIMABLE
 *   /sys/module/kmalloc_cg/parameters/dma        same with
 *                          GFP_KERNEL_ACCOUNT | GFP_DMA (CONFIG_ZONE_DMA)
 *   /sys/module/kmalloc_cg/parameters/limited    write N: try N allocations
 *                          with GFP_KERNEL_ACCOUNT | __GFP_NORETRY, going
 *                          on past a failed one (the memory cgroup's
 *                          limit reached), which is counted in failed
 *   /sys/module/kmalloc_cg/parameters/bulk       write N: allocate N objects
 *                          of the kmalloc cache of size and
 *                          GFP_KERNEL_ACCOUNT (kmalloc-cg-<size> on the
 *                          stack) with kmem_cache_alloc_bulk(), in
 *                          batches of KCG_BATCH, with __GFP_NORETRY,
 *                          going on past a failed batch (failed counts
 *                          its objects); not with SLOB
 *   /sys/module/kmalloc_cg/parameters/remote     write N: allocate N objects
 *                          with GFP_KERNEL_ACCOUNT from a kernel worker
 *                          (a kthread, charged nothing by itself) that
 *                          names the writer's memory cgroup as its
 *                          active memcg: remote charging from a kernel
 *                          thread
 *   /sys/module/kmalloc_cg/parameters/parent     write N: allocate N objects
 *                          with GFP_KERNEL_ACCOUNT with the parent of the
 *                          writer's memory cgroup as the writer's active
 *                          memcg: a remote charge from a task that has a
 *                          memory cgroup of its own, as mkdir of a cgroup
 *                          makes for the new memcg's per-cpu data
 *   /sys/module/kmalloc_cg/parameters/failed     read: allocations of
 *                          limited and bulk that failed since the last
 *                          free
 *   /sys/module/kmalloc_cg/parameters/node       node to allocate from
 *                          (kmalloc_node()); -1, the default, for any
 *   /sys/module/kmalloc_cg/parameters/free       write anything: free
 *                          every object held (from any context)
 *
 * The objects are chained through their own first word, so holding them
 * costs no other allocation that could disturb the counters under test.
 */
#include <linux/kernel.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/workqueue.h>

struct kcg_obj {
	struct kcg_obj *next;
};

struct kcg_list {
	struct kcg_obj *head;
	unsigned long count;
	gfp_t gfp;
	bool keep_going;	/* count a failure in kcg_failed, try on */
	bool bulk;		/* kmem_cache_alloc_bulk() */
	bool remote;		/* from a worker, for the writer's memcg */
	bool parent;		/* for the writer's memcg's parent */
};

#define KCG_BATCH	16
/* The default object size; kcg_kmalloc() takes it as a constant. */
#define KCG_SIZE	256

static DEFINE_MUTEX(kcg_lock);
static unsigned int size = KCG_SIZE;
static struct kcg_list kcg_accounted = { .gfp = GFP_KERNEL_ACCOUNT };
static struct kcg_list kcg_plain = { .gfp = GFP_KERNEL };
static struct kcg_list kcg_reclaimable = {
	.gfp = GFP_KERNEL_ACCOUNT | __GFP_RECLAIMABLE,
};

#ifdef CONFIG_ZONE_DMA
static struct kcg_list kcg_dma = { .gfp = GFP_KERNEL_ACCOUNT | GFP_DMA };
#endif
static struct kcg_list kcg_limited = {
	.gfp = GFP_KERNEL_ACCOUNT | __GFP_NORETRY,
	.keep_going = true,
};
static struct kcg_list kcg_bulk = {
	.gfp = GFP_KERNEL_ACCOUNT | __GFP_NORETRY,
	.keep_going = true,
	.bulk = true,
};
static struct kcg_list kcg_remote = {
	.gfp = GFP_KERNEL_ACCOUNT,
	.remote = true,
};
static struct kcg_list kcg_parent = {
	.gfp = GFP_KERNEL_ACCOUNT,
	.parent = true,
};
static unsigned long kcg_failed;
static int node = NUMA_NO_NODE;

static void kcg_free_list(struct kcg_list *l)
{
	struct kcg_obj *obj;

	while (l->head) {
		obj = l->head;
		l->head = obj->next;
		kfree(obj);
		l->count--;
		cond_resched();
	}
}

static void kcg_free_all(void)
{
	kcg_free_list(&kcg_accounted);
	kcg_free_list(&kcg_plain);
	kcg_free_list(&kcg_reclaimable);
#ifdef CONFIG_ZONE_DMA
	kcg_free_list(&kcg_dma);
#endif
	kcg_free_list(&kcg_limited);
	kcg_free_list(&kcg_bulk);
	kcg_free_list(&kcg_remote);
	kcg_free_list(&kcg_parent);
	kcg_failed = 0;
}

static void kcg_hold(struct kcg_list *l, struct kcg_obj *obj)
{
	obj->next = l->head;
	l->head = obj;
	l->count++;
}

/*
 * kmalloc_node() with flags known only at run time (a gfp_t argument), as
 * most drivers' allocation helpers call it.  For the default size, the
 * size is a constant, and slab.h's inline code picks the kmalloc cache in
 * the module itself: on the android flavour that code must reference no
 * symbol outside ACK's KMI symbol lists (make kmi-check builds this
 * module against ACK and against the flavour and compares what each
 * needs).  Any other size goes through __kmalloc_node().
 */
static noinline void *kcg_kmalloc(gfp_t gfp)
{
	if (size == KCG_SIZE)
		return kmalloc_node(KCG_SIZE, gfp, node);
	return kmalloc_node(size, gfp, node);
}

#ifndef CONFIG_SLOB
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 17, 0)
/*
 * Since 5.17 a slab page's cache is in struct slab, which is mm/'s own.
 * Such a kernel here is make bench's 6.1 peer, which has no android
 * form: its kmalloc_caches[] holds every kmalloc cache.
 */
static struct kmem_cache *kcg_cache(gfp_t gfp)
{
	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return NULL;
	return kmalloc_caches[kmalloc_type(gfp)][__kmalloc_index(size, false)];
}
#else
struct kcg_probe_work {
	struct work_struct work;
	gfp_t gfp;
	struct kmem_cache *cache;
};

static void kcg_probe_fn(struct work_struct *work)
{
	struct kcg_probe_work *pw =
		container_of(work, struct kcg_probe_work, work);
	void *obj = kcg_kmalloc(pw->gfp);
	struct page *page;

	if (!obj)
		return;
	page = virt_to_head_page(obj);
	if (PageSlab(page))
		pw->cache = page->slab_cache;
	kfree(obj);
}

/*
 * The kmalloc cache that kcg_kmalloc() takes with @gfp, found as the
 * cache of an object it gives: kmalloc_caches[kmalloc_type(gfp)] is no
 * way to find it, as the android flavour keeps the kmalloc-cg-<n> caches
 * outside that array (ACK's KMI freezes its size), unexported.  The
 * object is taken by a kworker, a kthread with no memory cgroup, so that
 * nothing is charged: the writer's cgroup may be at its limit.
 */
static struct kmem_cache *kcg_cache(gfp_t gfp)
{
	struct kcg_probe_work pw = { .gfp = gfp };

	INIT_WORK_ONSTACK(&pw.work, kcg_probe_fn);
	queue_work(system_unbound_wq, &pw.work);
	flush_work(&pw.work);
	destroy_work_on_stack(&pw.work);
	return pw.cache;
}
#endif

/*
 * Up to KCG_BATCH objects of @s, the kmalloc cache that kmalloc(size)
 * with the list's flags takes, in one kmem_cache_alloc_bulk() call: all
 * of them, or none (then counted as failed).  The cache is not one of
 * the module's own: kmem_cache_destroy() at unload would remove its
 * sysfs files under slab_mutex, which lockdep on 5.10 reports against a
 * write to any cache's "shrink" file (the tests write those).
 */
static void kcg_alloc_batch(struct kcg_list *l, struct kmem_cache *s,
			    unsigned long nr)
{
	void *objs[KCG_BATCH];
	int i, got;

	got = kmem_cache_alloc_bulk(s, l->gfp | __GFP_NOWARN, nr, objs);
	if (!got) {
		kcg_failed += nr;
		return;
	}
	for (i = 0; i < got; i++)
		kcg_hold(l, objs[i]);
}
#else
static struct kmem_cache *kcg_cache(gfp_t gfp)
{
	return NULL;
}

static void kcg_alloc_batch(struct kcg_list *l, struct kmem_cache *s,
			    unsigned long nr)
{
}
#endif

/* Allocate @nr objects onto @l, with kcg_lock held. */
static int kcg_alloc_n(struct kcg_list *l, unsigned long nr)
{
	struct kmem_cache *s = NULL;
	struct kcg_obj *obj;
	unsigned long i, step;
	int ret = 0;

	if (l->bulk) {
		if (IS_ENABLED(CONFIG_SLOB))
			return -EOPNOTSUPP;
		s = kcg_cache(l->gfp | __GFP_NOWARN);
		if (!s)
			return -EINVAL;
	}
	for (i = 0; i < nr; i += step) {
		step = 1;
		if (s) {
			step = min_t(unsigned long, nr - i, KCG_BATCH);
			kcg_alloc_batch(l, s, step);
		} else {
			obj = kcg_kmalloc(l->gfp | __GFP_NOWARN);
			if (obj) {
				kcg_hold(l, obj);
			} else if (l->keep_going) {
				kcg_failed++;
			} else {
				ret = -ENOMEM;
				break;
			}
		}
		cond_resched();
	}
	return ret;
}

struct kcg_remote_work {
	struct work_struct work;
	struct kcg_list *list;
	struct mem_cgroup *memcg;
	unsigned long nr;
	int ret;
};

/*
 * A kworker is a kthread: it has no memory cgroup of its own, and is
 * never in interrupt context, so its active memcg is the one charged.
 * Set directly, as set_active_memcg() would outside interrupts: that
 * inline helper refers to int_active_memcg, which 5.10 does not export.
 */
static void kcg_remote_fn(struct work_struct *work)
{
	struct kcg_remote_work *rw =
		container_of(work, struct kcg_remote_work, work);
#ifdef CONFIG_MEMCG
	struct mem_cgroup *old = current->active_memcg;

	current->active_memcg = rw->memcg;
#endif
	rw->ret = kcg_alloc_n(rw->list, rw->nr);
#ifdef CONFIG_MEMCG
	current->active_memcg = old;
#endif
}

static int kcg_alloc_remote(struct kcg_list *l, unsigned long nr)
{
	struct kcg_remote_work rw = { .list = l, .nr = nr };

#ifdef CONFIG_MEMCG
	rw.memcg = get_mem_cgroup_from_mm(current->mm);
#endif
	INIT_WORK_ONSTACK(&rw.work, kcg_remote_fn);
	queue_work(system_unbound_wq, &rw.work);
	flush_work(&rw.work);
	destroy_work_on_stack(&rw.work);
#ifdef CONFIG_MEMCG
	mem_cgroup_put(rw.memcg);
#endif
	return rw.ret;
}

/* Set directly, as in kcg_remote_fn(): the writer is not in interrupt. */
static int kcg_alloc_parent(struct kcg_list *l, unsigned long nr)
{
	int ret;
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg = get_mem_cgroup_from_mm(current->mm);
	struct mem_cgroup *old = current->active_memcg;

	current->active_memcg = memcg ? parent_mem_cgroup(memcg) : NULL;
#endif
	ret = kcg_alloc_n(l, nr);
#ifdef CONFIG_MEMCG
	current->active_memcg = old;
	mem_cgroup_put(memcg);
#endif
	return ret;
}

static int kcg_alloc(const char *val, const struct kernel_param *kp)
{
	struct kcg_list *l = kp->arg;
	unsigned long nr;
	int ret;

	ret = kstrtoul(val, 0, &nr);
	if (ret)
		return ret;

	mutex_lock(&kcg_lock);
	if (size < sizeof(struct kcg_obj) || size > KMALLOC_MAX_CACHE_SIZE)
		ret = -EINVAL;
	else if (l->remote)
		ret = kcg_alloc_remote(l, nr);
	else if (l->parent)
		ret = kcg_alloc_parent(l, nr);
	else
		ret = kcg_alloc_n(l, nr);
	mutex_unlock(&kcg_lock);
	return ret;
}

static int kcg_held(char *buf, const struct kernel_param *kp)
{
	struct kcg_list *l = kp->arg;
	unsigned long count;

	mutex_lock(&kcg_lock);
	count = l->count;
	mutex_unlock(&kcg_lock);
	return sprintf(buf, "%lu\n", count);
}

static const struct kernel_param_ops kcg_alloc_ops = {
	.set = kcg_alloc,
	.get = kcg_held,
};

static int kcg_free(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&kcg_lock);
	kcg_free_all();
	mutex_unlock(&kcg_lock);
	return 0;
}

static const struct kernel_param_ops kcg_free_ops = {
	.set = kcg_free,
};

static int kcg_set_size(const char *val, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&kcg_lock);
	ret = param_set_uint(val, kp);
	mutex_unlock(&kcg_lock);
	return ret;
}

static const struct kernel_param_ops kcg_size_ops = {
	.set = kcg_set_size,
	.get = param_get_uint,
};

static int kcg_set_node(const char *val, const struct kernel_param *kp)
{
	int nid, ret;

	ret = kstrtoint(val, 0, &nid);
	if (ret)
		return ret;
	if (nid != NUMA_NO_NODE &&
	    (nid < 0 || nid >= MAX_NUMNODES || !node_online(nid)))
		return -EINVAL;
	mutex_lock(&kcg_lock);
	node = nid;
	mutex_unlock(&kcg_lock);
	return 0;
}

static const struct kernel_param_ops kcg_node_ops = {
	.set = kcg_set_node,
	.get = param_get_int,
};

module_param_cb(size, &kcg_size_ops, &size, 0644);
MODULE_PARM_DESC(size, "object size in bytes");
module_param_cb(accounted, &kcg_alloc_ops, &kcg_accounted, 0644);
MODULE_PARM_DESC(accounted, "write N: allocate N GFP_KERNEL_ACCOUNT objects");
module_param_cb(plain, &kcg_alloc_ops, &kcg_plain, 0644);
MODULE_PARM_DESC(plain, "write N: allocate N GFP_KERNEL objects");
module_param_cb(reclaimable, &kcg_alloc_ops, &kcg_reclaimable, 0644);
MODULE_PARM_DESC(reclaimable, "write N: allocate N objects with GFP_KERNEL_ACCOUNT | __GFP_RECLAIMABLE");
#ifdef CONFIG_ZONE_DMA
module_param_cb(dma, &kcg_alloc_ops, &kcg_dma, 0644);
MODULE_PARM_DESC(dma, "write N: allocate N objects with GFP_KERNEL_ACCOUNT | GFP_DMA");
#endif
module_param_cb(limited, &kcg_alloc_ops, &kcg_limited, 0644);
MODULE_PARM_DESC(limited, "write N: try N GFP_KERNEL_ACCOUNT | __GFP_NORETRY allocations, failures counted");
module_param_cb(bulk, &kcg_alloc_ops, &kcg_bulk, 0644);
MODULE_PARM_DESC(bulk, "write N: allocate N GFP_KERNEL_ACCOUNT | __GFP_NORETRY objects in bulk, failures counted");
module_param_cb(remote, &kcg_alloc_ops, &kcg_remote, 0644);
MODULE_PARM_DESC(remote, "write N: allocate N GFP_KERNEL_ACCOUNT objects from a worker charging the writer's memcg");
module_param_cb(parent, &kcg_alloc_ops, &kcg_parent, 0644);
MODULE_PARM_DESC(parent, "write N: allocate N GFP_KERNEL_ACCOUNT objects charging the parent of the writer's memcg");
module_param_named(failed, kcg_failed, ulong, 0444);
MODULE_PARM_DESC(failed, "allocations of limited and bulk that failed since the last free");
module_param_cb(node, &kcg_node_ops, &node, 0644);
MODULE_PARM_DESC(node, "node to allocate from, -1 for any");
module_param_cb(free, &kcg_free_ops, NULL, 0200);
MODULE_PARM_DESC(free, "write anything: free all objects held");

static int __init kcg_init(void)
{
	return 0;
}

static void __exit kcg_exit(void)
{
	mutex_lock(&kcg_lock);
	kcg_free_all();
	mutex_unlock(&kcg_lock);
}

module_init(kcg_init);
module_exit(kcg_exit);
MODULE_DESCRIPTION("mm510 test helper: accounted and unaccounted kmalloc()");
MODULE_LICENSE("GPL");

//! A queue's capacity types (`JaxRuntimeQueue.spec.capacity`, e.g. `[{spot: true}, {onDemand:
//! true}]`): each shape becomes one flavor per entry, in the order given, which is the order Kueue
//! tries them (the ClusterQueue's flavors of a resource group are tried in order: Kueue docs,
//! concepts/cluster_queue "Flavors and borrowing semantics"). A flavor's node labels are the shape's
//! and the capacity's; its tolerations, which Kueue adds to the pods it admits
//! (concepts/resource_flavor "ResourceFlavor tolerations"), those the capacity's nodes need. The
//! runtimes such a queue serves choose no capacity of their own: Kueue picks it.

use super::shape::{dns_name, Served, Shape};
use crate::catalog::{Capacity, Platform};
use crate::diag::Diagnostic;
use crate::resolve::Accel;
use crate::rules::catalog::CATALOG_QUEUE;

/// The shapes, each expanded into one per capacity type (none given: as they are), and for each
/// resulting shape the index of the shape it came from.
pub fn expand(shapes: Vec<Shape>, served: &[Served], capacity: &[Capacity]) -> Result<(Vec<Shape>, Vec<usize>), Vec<Diagnostic>> {
    if capacity.is_empty() {
        let group = (0..shapes.len()).collect();
        return Ok((shapes, group));
    }
    let mut errors = Vec::new();
    for s in served {
        let own: Vec<String> = s.capacity.iter().filter(|c| !c.data().is_some_and(|k| k.mode)).map(|c| c.words()).collect();
        if !own.is_empty() {
            errors.push(
                Diagnostic::new(
                    &CATALOG_QUEUE,
                    format!("runtime `{}` selects {} itself; this queue's `capacity` gives each shape a flavor per capacity type, and Kueue picks one", s.name, own.join(" and ")),
                )
                .with_field("spec.capacity")
                .with_help("remove `spec.capacity` from the runtime (keep `autopilot`), or serve it from a queue without `capacity`"),
            );
        }
    }
    let mut out = Vec::new();
    let mut group = Vec::new();
    for (g, shape) in shapes.into_iter().enumerate() {
        let platform = shape.uses.first().map(|(r, _)| served[*r].platform.clone()).unwrap_or_default();
        for (i, entry) in capacity.iter().enumerate() {
            let choices = match crate::resolve::capacity::choices(Some(entry), None, &Platform::new(platform.clone()), &Accel::Cpu) {
                Ok(c) => c,
                Err(ds) => {
                    for d in ds {
                        let field = d.field.clone().unwrap_or_default().replacen("spec.capacity", &format!("spec.capacity[{i}]"), 1);
                        errors.push(Diagnostic { rule: &CATALOG_QUEUE, ..d }.with_field(field));
                    }
                    continue;
                }
            };
            let mut s = shape.clone();
            let suffix: Vec<String> = choices.iter().map(|c| c.flavor()).collect();
            s.name = dns_name(&format!("{}-{}", shape.name, suffix.join("-")));
            for c in &choices {
                s.labels.extend(c.node_selector(&platform));
                for t in c.tolerations(&platform) {
                    if !s.tolerations.contains(&t) {
                        s.tolerations.push(t);
                    }
                }
            }
            out.push(s);
            group.push(g);
        }
    }
    // Two entries that make the same flavor (`{onDemand: true}` twice).
    for (i, s) in out.iter().enumerate() {
        if out[..i].iter().any(|o| o.name == s.name) {
            errors.push(
                Diagnostic::new(
                    &CATALOG_QUEUE,
                    format!("flavor `{}` is made twice: two `capacity` entries name the same capacity", s.name),
                )
                .with_field("spec.capacity"),
            );
        }
    }
    if errors.is_empty() {
        Ok((out, group))
    } else {
        errors.dedup_by(|a, b| a.message == b.message);
        Err(errors)
    }
}

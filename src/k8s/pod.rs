//! A Job's pod template as the API server checks it when the Job controller's Job (and then its
//! Pods) are created (kubernetes/kubernetes v1.34.1 `pkg/apis/core/validation/validation.go`):
//! containers and init containers (`validateContainerCommon`, `validateContainers`,
//! `validateInitContainers`, `validateContainerOnlyForPod`), ports (`validateContainerPorts`),
//! env (`ValidateEnv`, `ValidateEnvFrom`, `validateEnvVarValueFrom`), volumes and mounts
//! (`ValidateVolumes`, `validateVolumeSource`, `ValidateVolumeMounts`), security contexts and the
//! pod's own fields (`ValidatePodSpec`), plus the list keys the CRD enforces at apply
//! (apiextensions-apiserver v0.34.1 `validateListMap`). Scheduling is in [`super::scheduling`],
//! resources in [`super::resources`], the Job around it in [`super::job`].

use std::collections::{BTreeMap, HashSet};

use k8s_openapi::api::core::v1::{Container, EnvFromSource, EnvVar, PodSecurityContext, PodSpec, SecurityContext, Volume};

use super::facts::{facts, listed};
use super::finding::{finding, finding_at, shown, Scope};
use super::names;
use super::quantity;
use super::resources;
use super::scheduling;
use crate::diag::{Diagnostic, FieldPath};
use crate::rules::kubernetes::*;
use crate::rules::{Moment, Rule};

/// Checks a Job's pod spec at `path` (`...template.spec`). `claim_volumes` are the volumes added
/// to the pod outside its template: JobSet's from `volumeClaimPolicies` templates (JobSet v0.12.0
/// `addVolumes`) and the ML policy plugin's (`pluginVolumes` of catalog/trainer.yaml).
pub fn pod_spec(spec: &PodSpec, path: &FieldPath, claim_volumes: &[&str], out: &mut Vec<Diagnostic>) {
    let mut volumes: HashSet<&str> = claim_volumes.iter().copied().collect();
    volume_list(spec.volumes.as_deref().unwrap_or_default(), &path.field("volumes"), &mut volumes, out);
    let containers_path = path.field("containers");
    duplicates(spec.containers.iter().map(|c| c.name.as_str()), &containers_path, "name", "container name", out);
    for (i, c) in spec.containers.iter().enumerate() {
        let at = containers_path.index(i);
        container(c, &at, &volumes, out);
        if let Some(p) = &c.restart_policy {
            out.push(finding(
                &K8S_RESTART_POLICY,
                Scope::Template,
                at.field("restartPolicy"),
                format!("`restartPolicy: {p}` may not be set on a regular container; only init containers take `restartPolicy: Always` (native sidecars)"),
            ));
        }
    }
    let init_path = path.field("initContainers");
    let init = spec.init_containers.as_deref().unwrap_or_default();
    duplicates(init.iter().map(|c| c.name.as_str()), &init_path, "name", "init container name", out);
    let regular: HashSet<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
    for (i, c) in init.iter().enumerate() {
        let at = init_path.index(i);
        container(c, &at, &volumes, out);
        if regular.contains(c.name.as_str()) {
            out.push(finding(
                &K8S_CONTAINER_NAME,
                Scope::Template,
                at.field("name"),
                format!("init container `{}` has the name of a container; names are unique across containers and init containers", c.name),
            ));
        }
        init_container(c, &at, out);
    }
    if let Some(sc) = &spec.security_context {
        pod_security(sc, &path.field("securityContext"), out);
    }
    pod_fields(spec, path, out);
    if let Some(ns) = &spec.node_selector {
        scheduling::node_selector(ns, &path.field("nodeSelector"), out);
    }
    if let Some(t) = &spec.tolerations {
        scheduling::tolerations(t, &path.field("tolerations"), out);
    }
    if let Some(a) = &spec.affinity {
        scheduling::affinity(a, &path.field("affinity"), out);
    }
    for (name, map) in [("overhead", spec.overhead.as_ref())] {
        for (k, q) in map.into_iter().flatten() {
            resources::quantity_at(&q.0, &path.key(name).key(k), out);
        }
    }
    if let Some(r) = &spec.resources {
        for (section, map) in [("limits", &r.limits), ("requests", &r.requests)] {
            for (k, q) in map.iter().flatten() {
                resources::quantity_at(&q.0, &path.field("resources").key(section).key(k), out);
            }
        }
    }
}

/// One container (regular or init) at `path`.
pub fn container(c: &Container, path: &FieldPath, volumes: &HashSet<&str>, out: &mut Vec<Diagnostic>) {
    if let Err(e) = names::dns1123_label(&c.name) {
        out.push(finding(
            &K8S_CONTAINER_NAME,
            Scope::Template,
            path.field("name"),
            format!("`{}` is not a valid container name: it {e}", c.name),
        ));
    }
    image(c.image.as_deref(), &path.field("image"), out);
    let e = &facts().enums;
    one_of(c.image_pull_policy.as_deref(), &e.image_pull_policies, &path.field("imagePullPolicy"), "imagePullPolicy", out);
    one_of(
        c.termination_message_policy.as_deref(),
        &e.termination_message_policies,
        &path.field("terminationMessagePolicy"),
        "terminationMessagePolicy",
        out,
    );
    ports(c, path, out);
    env(c.env.as_deref().unwrap_or_default(), &path.field("env"), out);
    env_from(c.env_from.as_deref().unwrap_or_default(), &path.field("envFrom"), out);
    mounts(c, path, volumes, out);
    if let Some(r) = &c.resources {
        resources::requirements(r, &path.field("resources"), out);
    }
    if let Some(sc) = &c.security_context {
        container_security(sc, &path.field("securityContext"), out);
    }
}

/// An image is required in a template (`validateContainerCommon`); surrounding whitespace fails
/// every Pod (`validateContainerOnlyForPod`).
pub fn image(image: Option<&str>, field: &FieldPath, out: &mut Vec<Diagnostic>) {
    match image {
        None | Some("") => out.push(finding(
            &K8S_IMAGE,
            Scope::Template,
            field,
            "the container has no image, so each TrainJob must set one or its Job is refused",
        )),
        // `validateContainerOnlyForPod`: a check of Pods, not of pod templates.
        Some(i) if i.trim() != i => out.push(finding_at(
            &K8S_IMAGE,
            Some(Moment::PodStart),
            field,
            format!("the image {} has whitespace before or after it; the Job is accepted but every Pod is refused", shown(i)),
        )),
        Some(i) => {
            if let Err(e) = super::image::check(i) {
                out.push(finding(
                    &K8S_IMAGE_REFERENCE,
                    Scope::Template,
                    field,
                    format!(
                        "the kubelet cannot pull the image {}: {e}; the pod is created but its container stays in `InvalidImageName`",
                        shown(i)
                    ),
                ));
            }
        }
    }
}

fn init_container(c: &Container, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let allowed = &facts().enums.init_container_restart_policies;
    let sidecar = c.restart_policy.as_deref().is_some_and(|p| allowed.iter().any(|a| a == p));
    if let Some(p) = c.restart_policy.as_deref().filter(|_| !sidecar) {
        out.push(finding(
            &K8S_RESTART_POLICY,
            Scope::Template,
            path.field("restartPolicy"),
            format!("an init container's `restartPolicy` may only be {} (a native sidecar), not `{p}`", listed(allowed)),
        ));
    }
    if sidecar {
        return;
    }
    for (name, set) in [
        ("lifecycle", c.lifecycle.is_some()),
        ("livenessProbe", c.liveness_probe.is_some()),
        ("readinessProbe", c.readiness_probe.is_some()),
        ("startupProbe", c.startup_probe.is_some()),
    ] {
        if set {
            out.push(finding(
                &K8S_INIT_CONTAINER,
                Scope::Template,
                path.key(name),
                format!("`{name}` may not be set on an init container without `restartPolicy: Always`"),
            ));
        }
    }
}

fn ports(c: &Container, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let l = &facts().limits;
    let protocols = &facts().enums.protocols;
    let mut names_seen = HashSet::new();
    let mut keys_seen = HashSet::new();
    for (i, p) in c.ports.iter().flatten().enumerate() {
        let at = path.field("ports").index(i);
        if let Some(name) = p.name.as_deref().filter(|n| !n.is_empty()) {
            if let Err(e) = names::port_name(name) {
                out.push(finding(&K8S_PORT_NAME, Scope::Template, at.field("name"), format!("`{name}` is not a valid port name: it {e}")));
            } else if !names_seen.insert(name) {
                out.push(finding(
                    &K8S_PORT_NAME,
                    Scope::Template,
                    at.field("name"),
                    format!("the port name `{name}` is used twice in this container"),
                ));
            }
        }
        let port = i64::from(p.container_port);
        if port < l.port_min || port > l.port_max {
            out.push(finding(
                &K8S_PORT,
                Scope::Template,
                at.field("containerPort"),
                format!("containerPort {port} is outside {}..{}", l.port_min, l.port_max),
            ));
        }
        if let Some(h) = p.host_port.map(i64::from).filter(|h| *h != 0 && (*h < l.port_min || *h > l.port_max)) {
            out.push(finding(
                &K8S_PORT,
                Scope::Template,
                at.field("hostPort"),
                format!("hostPort {h} is outside {}..{} (or 0)", l.port_min, l.port_max),
            ));
        }
        let protocol = p.protocol.as_deref().unwrap_or("TCP");
        if !protocols.iter().any(|x| x == protocol) {
            out.push(finding(
                &K8S_PORT,
                Scope::Template,
                at.field("protocol"),
                format!("protocol `{protocol}` is not one of {} (case-sensitive)", listed(protocols)),
            ));
        }
        if !keys_seen.insert((p.container_port, protocol)) {
            out.push(finding(
                &K8S_DUPLICATE_KEY,
                Scope::Template,
                at.field("containerPort"),
                format!("port {} with protocol {protocol} is listed twice in this container", p.container_port),
            ));
        }
    }
}

/// Env variables at `path` (the list): names, duplicates, `valueFrom`.
pub fn env(vars: &[EnvVar], path: &FieldPath, out: &mut Vec<Diagnostic>) {
    duplicates(vars.iter().map(|v| v.name.as_str()), path, "name", "env variable", out);
    for (i, v) in vars.iter().enumerate() {
        let at = path.index(i);
        env_name(&v.name, &at.field("name"), "env variable name", out);
        let Some(from) = &v.value_from else { continue };
        let from_path = at.field("valueFrom");
        let sources =
            [from.field_ref.is_some(), from.resource_field_ref.is_some(), from.config_map_key_ref.is_some(), from.secret_key_ref.is_some()];
        let n = sources.iter().filter(|s| **s).count();
        if n == 0 {
            out.push(finding(
                &K8S_ENV_VALUE_FROM,
                Scope::Template,
                from_path.clone(),
                "`valueFrom` names no source; give one of `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef`",
            ));
        } else if v.value.as_deref().is_some_and(|x| !x.is_empty()) {
            out.push(finding(
                &K8S_ENV_VALUE_FROM,
                Scope::Template,
                from_path.clone(),
                format!("`{}` has both `value` and `valueFrom`; keep one", v.name),
            ));
        } else if n > 1 {
            out.push(finding(&K8S_ENV_VALUE_FROM, Scope::Template, from_path.clone(), "`valueFrom` names more than one source; keep one"));
        }
        if let Some(f) = &from.field_ref {
            field_ref(f.api_version.as_deref(), &f.field_path, &from_path.field("fieldRef"), out);
        }
        if let Some(r) = &from.resource_field_ref {
            resource_field_ref(&r.resource, r.divisor.as_ref().map(|d| d.0.as_str()), &from_path.field("resourceFieldRef"), out);
        }
        for (name, sel) in [
            ("configMapKeyRef", from.config_map_key_ref.as_ref().map(|s| (s.name.as_str(), s.key.as_str()))),
            ("secretKeyRef", from.secret_key_ref.as_ref().map(|s| (s.name.as_str(), s.key.as_str()))),
        ] {
            let Some((obj, key)) = sel else { continue };
            let at = from_path.key(name);
            if let Err(e) = names::dns1123_subdomain(obj) {
                out.push(finding(
                    &K8S_ENV_VALUE_FROM,
                    Scope::Template,
                    at.field("name"),
                    format!("`{obj}` is not a valid object name: it {e}"),
                ));
            }
            if let Err(e) = names::config_map_key(key) {
                out.push(finding(&K8S_ENV_VALUE_FROM, Scope::Template, at.field("key"), format!("`{key}` is not a valid key: it {e}")));
            }
        }
    }
}

fn env_from(list: &[EnvFromSource], path: &FieldPath, out: &mut Vec<Diagnostic>) {
    for (i, e) in list.iter().enumerate() {
        if let Some(p) = e.prefix.as_deref().filter(|p| !p.is_empty()) {
            env_name(p, &path.index(i).field("prefix"), "envFrom prefix", out);
        }
    }
}

fn env_name(name: &str, field: &FieldPath, what: &str, out: &mut Vec<Diagnostic>) {
    if let Err(e) = names::env_var_name(name) {
        out.push(finding(&K8S_ENV_NAME, Scope::Template, field, format!("{} is not a valid {what}: it {e}", shown(name))));
    } else if names::legacy_env_var_name(name).is_err() {
        out.push(finding(
            &K8S_ENV_NAME_PORTABLE,
            Scope::Template,
            field,
            format!(
                "{} is a valid {what} since Kubernetes {} only; older clusters refuse it",
                shown(name),
                facts().relaxed_env_names_since
            ),
        ));
    }
}

/// `validateObjectFieldSelector` for env: the apiVersion and the supported field paths.
pub fn field_ref(api_version: Option<&str>, path_expr: &str, at: &FieldPath, out: &mut Vec<Diagnostic>) {
    let env = &facts().env;
    if let Some(v) = api_version.filter(|v| !v.is_empty() && *v != env.field_api_version) {
        out.push(finding(
            &K8S_ENV_FIELD_PATH,
            Scope::Template,
            at.field("apiVersion"),
            format!("`apiVersion: {v}` is not supported; the downward API is `{}`", env.field_api_version),
        ));
        return;
    }
    let field = at.field("fieldPath");
    if let Some((base, rest)) = path_expr.split_once("['") {
        let Some(key) = rest.strip_suffix("']") else {
            out.push(finding(&K8S_ENV_FIELD_PATH, Scope::Template, field, format!("`{path_expr}` is not a field path")));
            return;
        };
        if !env.subscripted_field_paths.iter().any(|p| p == base) {
            out.push(finding(
                &K8S_ENV_FIELD_PATH,
                Scope::Template,
                field,
                format!("`{base}` does not take a subscript; only {} do", listed(&env.subscripted_field_paths)),
            ));
            return;
        }
        let checked = if base == "metadata.annotations" { names::annotation_key(key) } else { names::qualified_name(key) };
        if let Err(e) = checked {
            out.push(finding(&K8S_ENV_FIELD_PATH, Scope::Template, field, format!("`{key}` is not a valid key: it {e}")));
        }
    } else if !env.field_paths.iter().any(|p| p == path_expr) {
        out.push(finding(
            &K8S_ENV_FIELD_PATH,
            Scope::Template,
            field,
            format!("`{path_expr}` is not a field env can read; expected one of {} or `metadata.labels['<key>']`, `metadata.annotations['<key>']`", listed(&env.field_paths)),
        ));
    }
}

/// `validateContainerResourceFieldSelector` and `validateContainerResourceDivisor`.
pub fn resource_field_ref(resource: &str, divisor: Option<&str>, at: &FieldPath, out: &mut Vec<Diagnostic>) {
    let env = &facts().env;
    let known =
        env.resource_fields.iter().any(|r| r == resource) || env.resource_field_prefixes.iter().any(|p| resource.starts_with(p.as_str()));
    if !known {
        out.push(finding(
            &K8S_ENV_RESOURCE_FIELD,
            Scope::Template,
            at.field("resource"),
            format!(
                "`{resource}` is not a resource env can read; expected one of {} or `requests.hugepages-<size>`, `limits.hugepages-<size>`",
                listed(&env.resource_fields)
            ),
        ));
        return;
    }
    let Some(d) = divisor else { return };
    let Ok(q) = quantity::parse(d) else {
        out.push(finding(&K8S_QUANTITY, Scope::Template, at.field("divisor"), format!("{} is not a Kubernetes quantity", shown(d))));
        return;
    };
    if q == quantity::Quantity::ZERO {
        return;
    }
    let allowed = if resource.ends_with(".cpu") { &env.cpu_divisors } else { &env.memory_divisors };
    if !allowed.iter().any(|a| quantity::parse(a).is_ok_and(|x| x.cmp(&q).is_eq())) {
        out.push(finding(
            &K8S_ENV_RESOURCE_FIELD,
            Scope::Template,
            at.field("divisor"),
            format!("divisor `{d}` is not supported for `{resource}`; use one of {}", listed(allowed)),
        ));
    }
}

fn mounts(c: &Container, path: &FieldPath, volumes: &HashSet<&str>, out: &mut Vec<Diagnostic>) {
    let list = c.volume_mounts.as_deref().unwrap_or_default();
    let at_list = path.field("volumeMounts");
    duplicates(list.iter().map(|m| m.mount_path.as_str()), &at_list, "mountPath", "mount path", out);
    for (i, m) in list.iter().enumerate() {
        let at = at_list.index(i);
        if !volumes.contains(m.name.as_str()) {
            out.push(finding(&K8S_VOLUME_MOUNT, Scope::Template, at.field("name"), format!("the pod has no volume `{}` to mount", m.name)));
        }
        let sub = m.sub_path.as_deref().filter(|s| !s.is_empty());
        let expr = m.sub_path_expr.as_deref().filter(|s| !s.is_empty());
        if sub.is_some() && expr.is_some() {
            out.push(finding(
                &K8S_VOLUME_MOUNT,
                Scope::Template,
                at.field("subPathExpr"),
                "`subPath` and `subPathExpr` are mutually exclusive",
            ));
        }
        for (name, v) in [("subPath", sub), ("subPathExpr", expr)] {
            if let Some(v) = v {
                if v.starts_with('/') || v.split(['/', '\\']).any(|p| p == "..") {
                    out.push(finding(
                        &K8S_VOLUME_MOUNT,
                        Scope::Template,
                        at.key(name),
                        format!("`{v}` must be a relative path without `..`"),
                    ));
                }
            }
        }
    }
}

fn volume_list<'a>(list: &'a [Volume], path: &FieldPath, names_out: &mut HashSet<&'a str>, out: &mut Vec<Diagnostic>) {
    duplicates(list.iter().map(|v| v.name.as_str()), path, "name", "volume name", out);
    for (i, v) in list.iter().enumerate() {
        let at = path.index(i);
        match names::dns1123_label(&v.name) {
            Err(e) => out.push(finding(
                &K8S_VOLUME,
                Scope::Template,
                at.field("name"),
                format!("`{}` is not a valid volume name: it {e}", v.name),
            )),
            // A volume that fails validation is left out of the pod's volumes (`ValidateVolumes`).
            Ok(()) => {
                names_out.insert(v.name.as_str());
            }
        }
        let sources = volume_sources(v);
        if sources.len() > 1 {
            out.push(finding(
                &K8S_VOLUME,
                Scope::Template,
                at.clone(),
                format!("volume `{}` names {} sources ({}); a volume has exactly one", v.name, sources.len(), sources.join(", ")),
            ));
        }
        if let Some(size) = v.empty_dir.as_ref().and_then(|e| e.size_limit.as_ref()) {
            resources::quantity_at(&size.0, &at.field("emptyDir").field("sizeLimit"), out);
        }
    }
}

/// The source fields a volume sets: every key of its JSON form but `name`.
fn volume_sources(v: &Volume) -> Vec<String> {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::Object(m)) => {
            m.into_iter().filter(|(k, x)| k != "name" && !x.is_null()).map(|(k, _)| format!("`{k}`")).collect()
        }
        _ => Vec::new(),
    }
}

fn pod_security(sc: &PodSecurityContext, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    for (name, id) in [("runAsUser", sc.run_as_user), ("runAsGroup", sc.run_as_group), ("fsGroup", sc.fs_group)] {
        id_range(id, &path.key(name), out);
    }
    for (i, g) in sc.supplemental_groups.iter().flatten().enumerate() {
        id_range(Some(*g), &path.field("supplementalGroups").index(i), out);
    }
    let policies = &facts().enums.fs_group_change_policies;
    if let Some(p) = sc.fs_group_change_policy.as_deref().filter(|p| !policies.iter().any(|x| x == p)) {
        out.push(finding(
            &K8S_SECURITY_CONTEXT,
            Scope::Template,
            path.field("fsGroupChangePolicy"),
            format!("`{p}` is not one of {}", listed(policies)),
        ));
    }
}

fn container_security(sc: &SecurityContext, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    for (name, id) in [("runAsUser", sc.run_as_user), ("runAsGroup", sc.run_as_group)] {
        id_range(id, &path.key(name), out);
    }
    if sc.allow_privilege_escalation == Some(false) && sc.privileged == Some(true) {
        out.push(finding(&K8S_SECURITY_CONTEXT, Scope::Template, path, "`privileged: true` contradicts `allowPrivilegeEscalation: false`"));
    }
}

fn id_range(id: Option<i64>, field: &FieldPath, out: &mut Vec<Diagnostic>) {
    let max = facts().limits.int32_max;
    if let Some(v) = id.filter(|v| *v < 0 || *v > max) {
        out.push(finding(&K8S_SECURITY_CONTEXT, Scope::Template, field, format!("{v} is outside 0..{max}")));
    }
}

fn pod_fields(spec: &PodSpec, path: &FieldPath, out: &mut Vec<Diagnostic>) {
    let max = facts().limits.int32_max;
    if let Some(v) = spec.active_deadline_seconds.filter(|v| *v < 1 || *v > max) {
        out.push(
            finding(
                &K8S_POD_FIELD,
                Scope::Template,
                path.field("activeDeadlineSeconds"),
                format!("the pod's activeDeadlineSeconds {v} is outside 1..{max}"),
            )
            .with_help("give the seconds a pod may run before it is stopped, from 1, or leave the field out for no limit"),
        );
    }
    for (name, value) in [("hostname", &spec.hostname), ("subdomain", &spec.subdomain)] {
        if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
            if let Err(e) = names::dns1123_label(v) {
                let d = finding(&K8S_POD_FIELD, Scope::Template, path.key(name), format!("`{v}` is not a valid {name}: it {e}"));
                out.push(with_name_help(d, v, false, name));
            }
        }
    }
    for (name, value) in
        [("priorityClassName", &spec.priority_class_name), ("runtimeClassName", &spec.runtime_class_name), ("nodeName", &spec.node_name)]
    {
        if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
            if let Err(e) = names::dns1123_subdomain(v) {
                let d = finding(&K8S_POD_FIELD, Scope::Template, path.key(name), format!("`{v}` is not a valid {name}: it {e}"));
                out.push(with_name_help(d, v, true, name));
            }
        }
    }
    if let Some(sa) = spec.service_account_name.as_deref().filter(|v| !v.is_empty()) {
        service_account(sa, &path.field("serviceAccountName"), out);
    }
    let e = &facts().enums;
    one_of(spec.dns_policy.as_deref(), &e.dns_policies, &path.field("dnsPolicy"), "dnsPolicy", out);
    one_of(spec.preemption_policy.as_deref(), &e.preemption_policies, &path.field("preemptionPolicy"), "preemptionPolicy", out);
    let nameservers = spec.dns_config.as_ref().and_then(|d| d.nameservers.as_ref()).map_or(0, Vec::len);
    if spec.dns_policy.as_deref() == Some("None") && nameservers == 0 {
        out.push(
            finding(&K8S_POD_FIELD, Scope::Template, path.field("dnsConfig"), "`dnsPolicy: None` needs `dnsConfig.nameservers`")
                .with_help("add `dnsConfig.nameservers` (at most 3 addresses), or use another `dnsPolicy` such as `ClusterFirst`"),
        );
    }
}

/// A name finding's help: the valid name nearest the one written, where there is one.
/// `field` names an object (`priorityClassName`: a PriorityClass), whose name must match.
fn with_name_help(d: Diagnostic, written: &str, dots: bool, field: &str) -> Diagnostic {
    let Some(name) = names::dns1123_like(written, dots) else { return d };
    let parts = if dots { ", in parts joined by `.`" } else { "" };
    let object = match field {
        "priorityClassName" => "; the PriorityClass must have that name",
        "runtimeClassName" => "; the RuntimeClass must have that name",
        "nodeName" => "; the Node must have that name",
        _ => "",
    };
    d.with_help(format!("write `{name}` (lowercase letters, digits and `-`{parts}){object}"))
}

/// `serviceAccountName`: a DNS-1123 subdomain (`ValidateServiceAccountName`).
pub fn service_account(name: &str, field: &FieldPath, out: &mut Vec<Diagnostic>) {
    if let Err(e) = names::dns1123_subdomain(name) {
        out.push(finding(&K8S_SERVICE_ACCOUNT, Scope::Template, field, format!("`{name}` is not a valid service account name: it {e}")));
    }
}

/// An optional enum field: a finding when it is set to a value outside `allowed`.
pub fn one_of(value: Option<&str>, allowed: &[String], field: &FieldPath, what: &str, out: &mut Vec<Diagnostic>) {
    enum_at(&K8S_ENUM, value, allowed, field, what, out);
}

fn enum_at(rule: &'static Rule, value: Option<&str>, allowed: &[String], field: &FieldPath, what: &str, out: &mut Vec<Diagnostic>) {
    if let Some(v) = value.filter(|v| !v.is_empty() && !allowed.iter().any(|a| a == v)) {
        let near = allowed.iter().find(|a| a.eq_ignore_ascii_case(v)).map(|a| format!(" (did you mean `{a}`?)")).unwrap_or_default();
        out.push(finding(rule, Scope::Template, field, format!("{what} `{v}` is not one of {}{near}", listed(allowed))));
    }
}

/// Items of a CRD list-map that repeat their key (`validateListMap`): a finding at the second.
pub fn duplicates<'a>(keys: impl Iterator<Item = &'a str>, path: &FieldPath, key_field: &str, what: &str, out: &mut Vec<Diagnostic>) {
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, k) in keys.enumerate() {
        if let Some(j) = first.get(k) {
            out.push(finding(
                &K8S_DUPLICATE_KEY,
                Scope::Template,
                path.index(i).key(key_field),
                format!("the {what} `{k}` is also item {j}'s; each must be unique"),
            ));
        } else {
            first.insert(k, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: serde_json::Value) -> PodSpec {
        serde_json::from_value(v).unwrap()
    }

    fn found(s: &PodSpec) -> Vec<String> {
        let mut out = Vec::new();
        pod_spec(s, &"p".into(), &["claim"], &mut out);
        out.into_iter().map(|d| format!("{} {}", d.rule.id, d.field.unwrap_or_default())).collect()
    }

    #[test]
    fn a_legal_pod_with_a_native_sidecar_passes() {
        let s = spec(serde_json::json!({
            "containers": [{"name": "node", "image": "jax:1", "ports": [{"containerPort": 29500, "name": "coord-29500"}],
                "env": [{"name": "JAX_PLATFORMS", "value": "tpu"}, {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
                        {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}}],
                "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}, {"name": "claim", "mountPath": "/data", "subPath": "a/b"}]}],
            "initContainers": [{"name": "proxy", "image": "proxy:1", "restartPolicy": "Always", "readinessProbe": {"tcpSocket": {"port": 8080}}}],
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}],
            "securityContext": {"runAsUser": 1000, "fsGroup": 2000},
            "serviceAccountName": "trainer-sa", "dnsPolicy": "ClusterFirstWithHostNet"
        }));
        assert!(found(&s).is_empty(), "{:?}", found(&s));
    }

    #[test]
    fn container_mistakes() {
        let s = spec(serde_json::json!({
            "containers": [
                {"name": "Node", "image": " jax:1", "imagePullPolicy": "ifNotPresent", "restartPolicy": "Always",
                 "ports": [{"containerPort": 70000}, {"containerPort": 8471, "name": "coordinator-port", "protocol": "tcp"}],
                 "env": [{"name": "A=B"}, {"name": "1ST"}, {"name": "X", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "status.phase"}}}],
                 "volumeMounts": [{"name": "missing", "mountPath": "/a"}, {"name": "claim", "mountPath": "/a", "subPath": "../x"}]},
                {"name": "node", "image": ""}],
            "initContainers": [{"name": "node", "image": "i", "livenessProbe": {"tcpSocket": {"port": 1}}, "restartPolicy": "OnFailure"}],
            "volumes": [{"name": "v_1", "emptyDir": {}, "hostPath": {"path": "/x"}}],
            "serviceAccountName": "my_sa", "activeDeadlineSeconds": 0
        }));
        let got = found(&s);
        for want in [
            "k8s/volume p.volumes[0].name",
            "k8s/volume p.volumes[0]",
            "k8s/container-name p.containers[0].name",
            "k8s/image p.containers[0].image",
            "k8s/enum p.containers[0].imagePullPolicy",
            "k8s/port p.containers[0].ports[0].containerPort",
            "k8s/port-name p.containers[0].ports[1].name",
            "k8s/port p.containers[0].ports[1].protocol",
            "k8s/env-name p.containers[0].env[0].name",
            "k8s/env-name-portable p.containers[0].env[1].name",
            "k8s/env-value-from p.containers[0].env[2].valueFrom",
            "k8s/env-field-path p.containers[0].env[2].valueFrom.fieldRef.fieldPath",
            "k8s/duplicate-key p.containers[0].volumeMounts[1].mountPath",
            "k8s/volume-mount p.containers[0].volumeMounts[0].name",
            "k8s/volume-mount p.containers[0].volumeMounts[1].subPath",
            "k8s/restart-policy p.containers[0].restartPolicy",
            "k8s/image p.containers[1].image",
            "k8s/container-name p.initContainers[0].name",
            "k8s/restart-policy p.initContainers[0].restartPolicy",
            "k8s/init-container p.initContainers[0].livenessProbe",
            "k8s/pod-field p.activeDeadlineSeconds",
            "k8s/service-account-name p.serviceAccountName",
        ] {
            assert!(got.iter().any(|g| g == want), "missing {want} in {got:#?}");
        }
    }
}

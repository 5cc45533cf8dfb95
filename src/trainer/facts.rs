//! Kubeflow Trainer's facts, loaded once from `catalog/trainer.yaml` (embedded in the binary): the
//! releases jax-runtimes predicts, the ML policies, the ancestor label and its steps, the trainer
//! job's and container's name, what the JAX plugin injects, the labels on runtimes and the pod-name
//! suffix JobSet counts. Every stage asks [`facts`]; none keeps a copy. The unit tests prove the
//! table parses and agrees with the typed model.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

const TRAINER_YAML: &str = include_str!("../../catalog/trainer.yaml");

/// `catalog/trainer.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrainerFacts {
    /// The releases with the JAX policy that jax-runtimes predicts, oldest first.
    pub releases: Vec<String>,
    pub default_release: String,
    /// Releases before the JAX policy.
    pub without_jax: Vec<String>,
    /// Release -> the JobSet release it ships with.
    pub jobset: BTreeMap<String, String>,
    /// The framework policies of `spec.mlPolicy`.
    pub ml_policies: Vec<String>,
    pub ancestor_label: String,
    pub steps: Vec<Step>,
    pub trainer_step: String,
    /// The trainer replicated job's and container's name.
    pub node: String,
    pub patch_env_forbidden: Vec<String>,
    pub jax: JaxPlugin,
    pub labels: Labels,
    pub pod_name_suffix: String,
    pub initializers: InitializerFacts,
    /// ML policy -> replicated job name -> the volumes its plugin adds to that job's pods.
    pub plugin_volumes: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// The API versions the CRDs serve, per group (`catalog/trainer.yaml` `served`).
    pub served: BTreeMap<String, ServedGroup>,
}

/// A group's kinds and the versions its CRDs serve (`spec.versions[]` with `served: true`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServedGroup {
    /// Whose kinds, for messages (`Trainer`), and the release whose CRDs the versions are.
    pub owner: String,
    pub release: String,
    pub versions: Vec<String>,
    pub kinds: Vec<String>,
}

/// How Trainer's dataset and model initializers are wired (`catalog/trainer.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitializerFacts {
    /// The volume (and claim template) the initializers write and the trainer reads.
    pub volume: String,
    pub mount_path: String,
    /// The env the initializer reads its source from.
    pub storage_uri_env: String,
    /// Size of the claim per TrainJob of the upstream runtimes.
    pub claim_size: String,
    /// The status the trainer job waits for (`dependsOn`).
    pub depends_on_status: String,
    /// Step (= job and container name) -> image, without a tag.
    pub images: BTreeMap<String, String>,
    /// Release -> the images' tag.
    pub image_tags: BTreeMap<String, String>,
    /// Step -> the `STORAGE_URI` schemes it reads.
    pub schemes: BTreeMap<String, Vec<String>>,
    /// `spec.initializer.<field>` -> the step (replicated job and container name) the webhook
    /// requires in the runtime when the TrainJob sets it.
    pub required: BTreeMap<String, String>,
    /// The first release whose webhook also requires that container to mount `volume`.
    pub mount_required_since: String,
}

/// A value of the ancestor label, and the container its job must have.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    pub step: String,
    pub container: String,
}

/// What the JAX plugin injects into the `node` container.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JaxPlugin {
    pub num_processes: String,
    pub process_id: String,
    pub coordinator_address: String,
    pub port: u16,
}

impl JaxPlugin {
    /// The three variables, in the order the plugin injects them.
    pub fn env(&self) -> [&str; 3] {
        [&self.num_processes, &self.process_id, &self.coordinator_address]
    }

    /// What becomes of one of the plugin's variables that a runtime sets itself in its `node`
    /// container: the one sentence `render`, `validate` and `preview` all say.
    ///
    /// kubeflow/trainer v2.2.0 and v2.3.0: `pkg/runtime/runtime.go` `WithPodSet` starts the
    /// PodSet's containers with the runtime's env; `pkg/runtime/framework/plugins/jax/jax.go`
    /// `EnforceMLPolicy`, only when the TrainJob has `spec.trainer`, calls
    /// `apply.UpsertEnvVars` on it, which replaces a variable of the same name in place
    /// (`pkg/apply/apply.go` `upsert`); `plugins/jobset/jobset.go` `Build` upserts the result into
    /// the JobSet's container. So the plugin's value wins with `spec.trainer`, and the runtime's
    /// stays without it (the plugin then injects nothing).
    pub fn set_by_runtime(&self, name: &str) -> String {
        format!(
            "`{name}` is injected by Trainer's JAX plugin: for a TrainJob with `spec.trainer` the plugin's value replaces this one (jax.go EnforceMLPolicy upserts it by name); a TrainJob without `spec.trainer` gets no plugin variables, so every pod runs with this value and `jax.distributed.initialize()` can hang"
        )
    }
}

/// Labels on runtimes, and the values Trainer reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Labels {
    pub framework: String,
    pub support: String,
    pub deprecated: String,
    pub webhook_validation: String,
    pub webhook_disabled: String,
}

/// Why the table does not load (only a broken build can have this: the table is embedded).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("catalog/trainer.yaml: {0}")]
pub struct TrainerFactsError(String);

impl TrainerFacts {
    pub fn parse(text: &str) -> Result<TrainerFacts, TrainerFactsError> {
        let f: TrainerFacts = crate::yaml::from_str(text).map_err(|e| TrainerFactsError(e.message))?;
        if !f.releases.contains(&f.default_release) {
            return Err(TrainerFactsError(format!("defaultRelease `{}` is not one of the releases", f.default_release)));
        }
        if let Some(r) = f.releases.iter().find(|r| !f.jobset.contains_key(*r)) {
            return Err(TrainerFactsError(format!("release `{r}` has no JobSet release")));
        }
        if let Some(step) = f.initializers.required.values().find(|s| !f.is_initializer(s)) {
            return Err(TrainerFactsError(format!("initializers.required: `{step}` is not an initializer step")));
        }
        if !f.releases.contains(&f.initializers.mount_required_since) {
            return Err(TrainerFactsError(format!(
                "initializers.mountRequiredSince `{}` is not one of the releases",
                f.initializers.mount_required_since
            )));
        }
        if let Some(p) = f.plugin_volumes.keys().find(|p| !f.ml_policies.contains(p)) {
            return Err(TrainerFactsError(format!("pluginVolumes: `{p}` is not one of the mlPolicies")));
        }
        if !f.steps.iter().any(|s| s.step == f.trainer_step) {
            return Err(TrainerFactsError(format!("trainerStep `{}` is not one of the steps", f.trainer_step)));
        }
        Ok(f)
    }

    /// True when `step` is an initializer step (a step other than the trainer's).
    pub fn is_initializer(&self, step: &str) -> bool {
        step != self.trainer_step && self.steps.iter().any(|s| s.step == step)
    }

    /// The container the webhook requires in a job of `step`.
    pub fn container_of(&self, step: &str) -> Option<&str> {
        self.steps.iter().find(|s| s.step == step).map(|s| s.container.as_str())
    }

    /// The volumes the plugin of ML policy `policy` (`None`: PlainML) adds to the pods of the
    /// replicated job `job` when a TrainJob starts.
    pub fn plugin_volumes(&self, policy: Option<&str>, job: &str) -> &[String] {
        policy.and_then(|p| self.plugin_volumes.get(p)).and_then(|jobs| jobs.get(job)).map(Vec::as_slice).unwrap_or_default()
    }

    /// True for a variable the JAX plugin injects.
    pub fn is_jax_variable(&self, name: &str) -> bool {
        self.jax.env().contains(&name)
    }
}

/// The embedded table, parsed once; the unit tests prove it parses, so this never fails in a
/// built binary.
#[allow(clippy::expect_used, reason = "embedded data, not input; the unit tests prove it parses")]
pub fn facts() -> &'static TrainerFacts {
    static FACTS: OnceLock<TrainerFacts> = OnceLock::new();
    FACTS.get_or_init(|| TrainerFacts::parse(TRAINER_YAML).expect("catalog/trainer.yaml is valid (unit-tested)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_holds_together() {
        let f = TrainerFacts::parse(TRAINER_YAML).unwrap();
        assert_eq!(f.container_of(&f.trainer_step), Some(f.node.as_str()), "the trainer step's container is `node`");
        assert!(f.is_initializer("dataset-initializer") && !f.is_initializer(&f.trainer_step) && !f.is_initializer("other"));
        assert!(f.ml_policies.contains(&"jax".to_string()));
        assert_eq!(f.jax.env(), ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"]);
        assert!(f.without_jax.iter().all(|r| !f.releases.contains(r)));
        assert_eq!(f.plugin_volumes(Some("mpi"), "launcher"), ["mpi-ssh-auth", "mpi-hostfile"]);
        assert_eq!(f.plugin_volumes(Some("mpi"), "node"), ["mpi-ssh-auth"]);
        assert!(f.plugin_volumes(Some("mpi"), "worker").is_empty() && f.plugin_volumes(Some("torch"), "node").is_empty());
        assert!(f.plugin_volumes(None, "node").is_empty());
        for step in &f.steps {
            assert!(f.patch_env_forbidden.contains(&step.container), "{}", step.container);
        }
    }

    #[test]
    fn the_ml_policies_are_the_fields_of_the_typed_model() {
        let schema = serde_json::to_value(schemars::schema_for!(crate::trainer::MlPolicy)).unwrap();
        let mut fields: Vec<String> = schema["properties"].as_object().unwrap().keys().filter(|k| *k != "numNodes").cloned().collect();
        fields.sort();
        let mut listed = facts().ml_policies.clone();
        listed.sort();
        assert_eq!(fields, listed);
    }

    #[test]
    fn a_broken_table_is_an_error_not_a_panic() {
        assert!(TrainerFacts::parse("releases: [v2.3]").is_err());
        let bad = TRAINER_YAML.replace("defaultRelease: v2.3", "defaultRelease: v9.9");
        assert!(TrainerFacts::parse(&bad).unwrap_err().to_string().contains("defaultRelease"));
        let no_jobset = TRAINER_YAML.replace("  v2.3: v0.12.0\n", "");
        assert!(TrainerFacts::parse(&no_jobset).unwrap_err().to_string().contains("JobSet"));
        let bad_policy = TRAINER_YAML.replace("pluginVolumes:\n  mpi:", "pluginVolumes:\n  mpii:");
        assert!(TrainerFacts::parse(&bad_policy).unwrap_err().to_string().contains("pluginVolumes"));
    }
}

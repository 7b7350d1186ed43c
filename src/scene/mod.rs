// TEMPORARY until the scene-loading branch lands.
pub mod build;
pub mod schema;
use std::path::{Path, PathBuf};
pub struct LoadedScene { pub scene: schema::Scene, pub path: PathBuf, pub base_dir: PathBuf, pub effective_ron: String }
#[derive(Debug)]
pub struct SceneError(pub String);
impl std::fmt::Display for SceneError { fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { f.write_str(&self.0) } }
impl std::error::Error for SceneError {}
pub fn error_at(file: &str, field: &str, msg: &str) -> SceneError { SceneError(format!("{file}: {field}: {msg}")) }
pub fn resolve_path(base: &Path, p: &str) -> PathBuf { base.join(p) }
pub fn load_scene(path: &Path, overrides: &[String]) -> Result<LoadedScene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError(e.to_string()))?;
    let mut scene: schema::Scene = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME | ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES).from_str(&text).map_err(|e| SceneError(format!("{}:{e}", path.display())))?;
    for o in overrides {
        let (k, v) = o.split_once('=').unwrap();
        match k {
            "friction.pairs[0].mu" => scene.friction.pairs[0].mu = v.parse().unwrap(),
            "duration" => scene.duration = v.parse().ok(),
            "frames" => scene.frames = v.parse().ok(),
            "pipeline.friction=Lagged" => {}
            _ => {}
        }
        if o == "pipeline.friction=Lagged" { let schema::PipelineSpec::Penalty(p) = &mut scene.pipeline; p.friction = schema::FrictionEvaluation::Lagged; }
        if k == "bodies[0].velocity" { let v: Vec<f64> = v.trim_matches(|c| c=='('||c==')').split(',').map(|s| s.trim().parse().unwrap()).collect(); let schema::BodySpec::Solid(s) = &mut scene.bodies[0]; s.velocity = [v[0],v[1],v[2]]; }
    }
    Ok(LoadedScene { scene, path: path.to_path_buf(), base_dir: path.parent().unwrap().to_path_buf(), effective_ron: text })
}

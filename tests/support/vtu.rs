//! Reading `.vtu` files back with vtkio (the independent reader) in the output tests.
//! Included with `#[path = "support/vtu.rs"] mod vtu;`.

use std::path::Path;
use vtkio::model::{Attribute, DataSet, ElementType, UnstructuredGridPiece, Vtk};

/// The single unstructured-grid piece of a `.vtu` file.
pub fn read_vtu(path: &Path) -> UnstructuredGridPiece {
    let vtk = Vtk::import(path).unwrap_or_else(|e| panic!("vtkio cannot read {path:?}: {e}"));
    match vtk.data {
        DataSet::UnstructuredGrid { mut pieces, .. } => {
            assert_eq!(pieces.len(), 1, "{path:?}: pieces");
            pieces.remove(0).into_loaded_piece_data(None).expect("inline piece")
        }
        other => panic!("{path:?}: expected an unstructured grid, got {other:?}"),
    }
}

/// `(components, values)` of the named data array.
pub fn array(attrs: &[Attribute], name: &str) -> (u32, Vec<f64>) {
    for a in attrs {
        if let Attribute::DataArray(d) = a
            && d.name == name
        {
            let comps = match d.elem {
                ElementType::Vectors => 3,
                ElementType::Scalars { num_comp, .. } => num_comp,
                ElementType::Generic(n) => n,
                ref other => panic!("unexpected element type {other:?} for {name}"),
            };
            return (comps, d.data.clone().cast_into().expect("f64 data"));
        }
    }
    let names: Vec<&str> = attrs
        .iter()
        .filter_map(|a| match a {
            Attribute::DataArray(d) => Some(d.name.as_str()),
            _ => None,
        })
        .collect();
    panic!("array `{name}` not found; arrays: {names:?}")
}

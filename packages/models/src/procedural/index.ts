export { createProceduralModel, renderProcedural, type ProceduralModelOptions } from './procedural-model';
export { composeScene, type SceneInput } from './scene';
export { applyRecipe, recipeFor, type StyleRecipe } from './style';
export { STYLE_RECIPES } from './recipes';
